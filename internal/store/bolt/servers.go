package bolt

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

type bindingRecord struct {
	ServerCode string    `json:"server_code"`
	NPSN       string    `json:"npsn"`
	HardwareID string    `json:"hardware_id"`
	LicenseID  string    `json:"license_id"`
	BoundAt    time.Time `json:"bound_at"`
}

func (r bindingRecord) binding() exam.ServerBinding {
	return exam.ServerBinding{ServerCode: r.ServerCode, NPSN: r.NPSN, HardwareID: r.HardwareID,
		LicenseID: r.LicenseID, BoundAt: utc(r.BoundAt)}
}

// BindServer returns the binding of b.ServerCode, storing b when there is
// none. A binding to another HardwareID gives exam.ErrHardwareMismatch (even
// when the school differs too), to another school exam.ErrServerNPSNMismatch;
// otherwise LicenseID follows b.LicenseID and BoundAt stays.
func (s *Store) BindServer(ctx context.Context, b exam.ServerBinding) (exam.ServerBinding, error) {
	var out exam.ServerBinding
	err := s.update(ctx, "bind server", func(tx *bbolt.Tx) error {
		bucket := tx.Bucket(bucketServers)
		key := []byte(b.ServerCode)
		var rec bindingRecord
		found, err := getJSON(bucket, key, &rec)
		if err != nil {
			return err
		}
		switch {
		case !found:
			if b.ServerCode == "" {
				return fmt.Errorf("server_code is empty")
			}
			rec = bindingRecord{ServerCode: b.ServerCode, NPSN: b.NPSN, HardwareID: b.HardwareID,
				LicenseID: b.LicenseID, BoundAt: ts(b.BoundAt)}
		case rec.HardwareID != b.HardwareID:
			return fmt.Errorf("server %q: %w", b.ServerCode, exam.ErrHardwareMismatch)
		case rec.NPSN != b.NPSN:
			return fmt.Errorf("server %q: %w", b.ServerCode, exam.ErrServerNPSNMismatch)
		case rec.LicenseID == b.LicenseID:
			out = rec.binding()
			return nil
		default:
			rec.LicenseID = b.LicenseID
		}
		out = rec.binding()
		return putJSON(bucket, key, rec)
	})
	return out, err
}

// GetServerBinding returns the binding of the server_code.
func (s *Store) GetServerBinding(ctx context.Context, serverCode string) (exam.ServerBinding, error) {
	var out exam.ServerBinding
	err := s.view(ctx, "get server binding", func(tx *bbolt.Tx) error {
		var rec bindingRecord
		found, err := getJSON(tx.Bucket(bucketServers), []byte(serverCode), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("server %q: %w", serverCode, exam.ErrNotFound)
		}
		out = rec.binding()
		return nil
	})
	return out, err
}

// ListServerBindings returns the bindings of a school (all when npsn is
// empty), ordered by server_code.
func (s *Store) ListServerBindings(ctx context.Context, npsn string) ([]exam.ServerBinding, error) {
	var out []exam.ServerBinding
	err := s.view(ctx, "list server bindings", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketServers).ForEach(func(k, v []byte) error {
			var rec bindingRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if npsn == "" || rec.NPSN == npsn {
				out = append(out, rec.binding())
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteServerBinding removes the binding; exam.ErrNotFound when there is none.
func (s *Store) DeleteServerBinding(ctx context.Context, serverCode string) error {
	return s.update(ctx, "delete server binding", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketServers)
		if b.Get([]byte(serverCode)) == nil {
			return fmt.Errorf("server %q: %w", serverCode, exam.ErrNotFound)
		}
		return b.Delete([]byte(serverCode))
	})
}
