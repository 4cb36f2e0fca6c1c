-- An exam's stimuli (passages, tables, images, audio that groups of its
-- questions share): the JSON encoding of []exam.Stimulus, kept as bytes like
-- questions. Exams before them have none.
ALTER TABLE exams ADD COLUMN stimuli bytea NOT NULL DEFAULT '[]'::bytea;
