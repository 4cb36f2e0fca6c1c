-- Grades of essay answers: one row per version, so that every change is
-- kept; the latest version of an answer's grade is its grade. The primary
-- key makes two saves of the same version of one answer's grade conflict,
-- whichever instance runs them (exam.GradeStore.SaveGrade).
CREATE TABLE grades (
    exam_id     text COLLATE "C" NOT NULL REFERENCES exams (id) ON DELETE CASCADE,
    member_id   text COLLATE "C" NOT NULL,
    question_id text COLLATE "C" NOT NULL,
    version     integer NOT NULL CONSTRAINT grades_version_positive CHECK (version > 0),
    points      numeric(8, 2) NOT NULL CONSTRAINT grades_points_nonnegative CHECK (points >= 0),
    comment     text NOT NULL,
    grader_id   text COLLATE "C" NOT NULL REFERENCES users (id),
    graded_at   timestamptz NOT NULL,
    PRIMARY KEY (exam_id, member_id, question_id, version)
);

-- The exams each grader (role GRADER) may grade.
CREATE TABLE grader_exams (
    grader_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    exam_id   text COLLATE "C" NOT NULL REFERENCES exams (id) ON DELETE CASCADE,
    PRIMARY KEY (grader_id, exam_id)
);
