package ordering_test

import (
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/ordering"
)

// TestAwaitingVerification: the orders whose receipt waits, for the users
// of the payments menu only.
func TestAwaitingVerification(t *testing.T) {
	ctx := t.Context()
	svc, _, users, rice, _, _ := shop(t)
	cust, admin := users[ordering.RoleCustomer], users[ordering.RoleAdmin]
	if _, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 1}}}); err != nil {
		t.Fatal(err)
	}
	o, err := svc.PlaceOrder(ctx, cust, ordering.OrderRequest{ShippingType: ordering.ShippingPickup,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UploadProof(ctx, cust, o.ID, tinyPNG, ""); err != nil {
		t.Fatal(err)
	}
	list, err := svc.AwaitingVerification(ctx, admin)
	if err != nil || len(list) != 1 || list[0].ID != o.ID {
		t.Fatalf("awaiting: %+v %v", list, err)
	}
	for _, u := range []ordering.User{cust, users[ordering.RoleStaff]} {
		if _, err := svc.AwaitingVerification(ctx, u); apperr.CodeOf(err) != "FORBIDDEN" {
			t.Fatalf("%s lists the receipts: %v", u.Role, err)
		}
	}
}

// TestPriceOrder: the total of an order as placing it would count it,
// with nothing stored; bad requests are refused as PlaceOrder refuses them.
func TestPriceOrder(t *testing.T) {
	ctx := t.Context()
	svc, _, users, rice, tea, soup := shop(t)
	req := ordering.OrderRequest{ShippingType: ordering.ShippingDineIn,
		Items: []ordering.OrderItemRequest{{MenuID: rice.ID, Quantity: 2}, {MenuID: tea.ID, Quantity: 1}}}
	o, err := svc.PriceOrder(ctx, req)
	if err != nil || o.TotalPrice != 55_000 || len(o.Items) != 2 || o.ID != "" {
		t.Fatalf("price: %+v %v", o, err)
	}
	placed, err := svc.PlaceCounterOrder(ctx, users[ordering.RoleAdmin], req, "CASH", "")
	if err != nil || placed.TotalPrice != o.TotalPrice || !strings.HasSuffix(placed.OrderNumber, "-001") {
		t.Fatalf("the sale after pricing (pricing must store nothing, nor take a number): %+v %v", placed, err)
	}
	if _, err := svc.PriceOrder(ctx, ordering.OrderRequest{ShippingType: ordering.ShippingDineIn}); apperr.CodeOf(err) != "EMPTY_ORDER" {
		t.Fatalf("empty: %v", err)
	}
	if _, err := svc.PriceOrder(ctx, ordering.OrderRequest{ShippingType: ordering.ShippingDineIn,
		Items: []ordering.OrderItemRequest{{MenuID: soup.ID, Quantity: 1}}}); apperr.CodeOf(err) != "ITEM_UNAVAILABLE" {
		t.Fatalf("unavailable: %v", err)
	}
}
