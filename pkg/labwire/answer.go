package labwire

import "time"

// Answer is one student's answer to one question, as a lab server pushes
// it and as an answer export file's batches hold it. A push's
// checksum_sha256 (ChecksumSHA256) covers the exact bytes of its JSON array
// of answers.
type Answer struct {
	ExamID     string `json:"exam_id"`
	MemberID   string `json:"member_id"`
	QuestionID string `json:"question_id"`
	// Answer is an option id, option ids joined by "," for
	// multiple_choice, "true"/"false", or text.
	Answer     string    `json:"answer"`
	AnsweredAt time.Time `json:"answered_at"`
}
