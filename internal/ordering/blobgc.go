package ordering

import (
	"context"
	"fmt"
)

// ReceiptKeyPrefix starts the blob store key of every payment receipt
// (ProofKey).
const ReceiptKeyPrefix = "receipts/"

// ReferencedBlobs returns the blob store keys of the receipts that orders
// hold (ProofKey of each order's Proof), for the garbage collection of
// blobs (internal/blobgc): a receipt no order holds any more is not
// referenced.
func (s *Service) ReferencedBlobs(ctx context.Context) ([]string, error) {
	orders, err := s.store.ListOrders(ctx, OrderQuery{})
	if err != nil {
		return nil, fmt.Errorf("ordering: referenced blobs: %w", err)
	}
	var keys []string
	for _, o := range orders {
		if o.Proof != nil && o.Proof.SHA256 != "" {
			keys = append(keys, ProofKey(o.ID, o.Proof.SHA256))
		}
	}
	return keys, nil
}
