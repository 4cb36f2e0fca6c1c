package links

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// QRInput is the input of CreateQR.
type QRInput struct {
	Name       string // optional; defaults to the type
	Type       QRType
	Data       json.RawMessage
	Background string
	Foreground string
	Logo       string
	LinkID     int64 // optional short link the code points through
}

// CreateQR records a QR code for the owner.
func (s *Service) CreateQR(ctx context.Context, owner int64, in QRInput) (QRCode, error) {
	data, err := ValidateQRData(in.Type, in.Data)
	if err != nil {
		return QRCode{}, err
	}
	q := QRCode{UserID: owner, Name: strings.TrimSpace(in.Name), Type: in.Type, Data: data, LinkID: in.LinkID}
	if q.Name == "" {
		q.Name = string(in.Type)
	}
	if err := validateText("name", q.Name, MaxNameLength); err != nil {
		return QRCode{}, err
	}
	if err := applyQRLook(&q, &in.Background, &in.Foreground, &in.Logo); err != nil {
		return QRCode{}, err
	}
	if q.Logo, err = storeLogo(ctx, s.blobs, q.Logo); err != nil {
		return QRCode{}, err
	}
	q.CreatedAt = s.clock()
	q.UpdatedAt = q.CreatedAt
	q, err = s.store.CreateQR(ctx, q)
	if err != nil {
		return QRCode{}, fmt.Errorf("links: create QR code: %w", err)
	}
	s.changed(ChangeQR)
	return q, nil
}

// applyQRLook validates and sets the non-nil colours and logo of a QR code.
func applyQRLook(q *QRCode, bg, fg, logo *string) error {
	if bg != nil {
		v, err := NormalizeRGB("background", *bg)
		if err != nil {
			return err
		}
		q.Background = v
	}
	if fg != nil {
		v, err := NormalizeRGB("foreground", *fg)
		if err != nil {
			return err
		}
		q.Foreground = v
	}
	if logo != nil {
		if err := ValidateLogo(*logo); err != nil {
			return err
		}
		q.Logo = *logo
	}
	return nil
}

// QRPatch is the input of UpdateQR: Data is required (checked against the
// code's type, which never changes); nil fields stay.
type QRPatch struct {
	Data       json.RawMessage
	Background *string
	Foreground *string
	Logo       *string
}

// UpdateQR changes the owner's QR code.
func (s *Service) UpdateQR(ctx context.Context, owner, id int64, in QRPatch) (QRCode, error) {
	if err := applyQRLook(&QRCode{}, in.Background, in.Foreground, in.Logo); err != nil {
		return QRCode{}, err
	}
	// The logo goes to the blob store before the record refers to it.
	var logo *string
	if in.Logo != nil {
		stored, err := storeLogo(ctx, s.blobs, *in.Logo)
		if err != nil {
			return QRCode{}, err
		}
		logo = &stored
	}
	now := s.clock()
	q, err := s.store.UpdateQR(ctx, owner, id, func(q *QRCode) error {
		data, err := ValidateQRData(q.Type, in.Data)
		if err != nil {
			return err
		}
		q.Data = data
		q.UpdatedAt = now
		if logo != nil {
			q.Logo = *logo
		}
		return applyQRLook(q, in.Background, in.Foreground, nil)
	})
	if err != nil {
		return QRCode{}, fmt.Errorf("links: update QR code %d: %w", id, err)
	}
	s.changed(ChangeQR)
	return q, nil
}

// DeleteQR removes the owner's QR code.
func (s *Service) DeleteQR(ctx context.Context, owner, id int64) error {
	if err := s.store.DeleteQR(ctx, owner, id); err != nil {
		return fmt.Errorf("links: delete QR code %d: %w", id, err)
	}
	s.changed(ChangeQR)
	return nil
}

// GetQR returns the owner's QR code, its logo as a data URI (read from the
// blob store: an error wraps blobstore.ErrUnavailable when it cannot be
// reached).
func (s *Service) GetQR(ctx context.Context, owner, id int64) (QRCode, error) {
	q, err := s.store.GetQR(ctx, owner, id)
	if err != nil {
		return QRCode{}, fmt.Errorf("links: QR code %d: %w", id, err)
	}
	if q.Logo, err = ResolveLogo(ctx, s.blobs, q.Logo); err != nil {
		return QRCode{}, fmt.Errorf("links: QR code %d: %w", id, err)
	}
	return q, nil
}

// ListQRs returns one page of the owner's QR codes. Their Logo is left as
// stored: a logo in the blob store is a reference (IsLogoRef); GetQR and
// ResolveLogo give the image.
func (s *Service) ListQRs(ctx context.Context, owner int64, p Page) (List[QRCode], error) {
	return list(ctx, "QR codes", owner, p, s.store.ListQRs)
}
