-- The latest calibration of each exam and model, shared by every portal
-- instance, and the run going on (exam.CalibrationStore). One instance at
-- a time runs a calibration, under a session-level advisory lock.
CREATE TABLE calibrations (
    exam_id        text COLLATE "C" NOT NULL REFERENCES exams (id) ON DELETE CASCADE,
    model          text COLLATE "C" NOT NULL,
    -- The latest finished calibration as the exam domain encoded it, NULL
    -- before one finished; its run read the answers from started_at.
    result         bytea,
    started_at     timestamptz,
    finished_at    timestamptz,
    -- The run going on: NULL run_started_at when none is.
    run_started_at timestamptz,
    run_updated_at timestamptz,
    run_stage      text NOT NULL DEFAULT '',
    run_students   integer NOT NULL DEFAULT 0,
    run_iteration  integer NOT NULL DEFAULT 0,
    PRIMARY KEY (exam_id, model)
);
