package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// MenuCategory is a section of the menu with its items.
type MenuCategory struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Position int        `json:"position"`
	Items    []MenuItem `json:"items,omitempty"`
}

// MenuItem is a dish or drink; Price is in rupiah (the smallest unit).
type MenuItem struct {
	ID          string    `json:"id,omitempty"`
	CategoryID  string    `json:"categoryId"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Price       int64     `json:"price"`
	Available   *bool     `json:"available,omitempty"`
	ImageURL    string    `json:"imageUrl,omitempty"`
	Position    int       `json:"position,omitempty"`
	CreatedAt   time.Time `json:"createdAt,omitzero"`
	UpdatedAt   time.Time `json:"updatedAt,omitzero"`
}

// OrderingMenuService is the menu catalogue: browsing (every role) and
// managing (ADMIN, OWNER).
type OrderingMenuService service

// Get returns the menu by category (GET /api/menu); customers get the
// items they can order now.
func (s *OrderingMenuService) Get(ctx context.Context) ([]MenuCategory, *Response, error) {
	var out struct {
		Categories []MenuCategory `json:"categories"`
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "menu", nil, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Categories, resp, nil
}

// CreateCategory adds a category (POST /api/menu/categories).
func (s *OrderingMenuService) CreateCategory(ctx context.Context, name string, position int) (*MenuCategory, *Response, error) {
	ctx = creating(ctx)
	var out struct {
		Category *MenuCategory `json:"category"`
	}
	body := map[string]any{"name": name, "position": position}
	resp, err := s.client.ordering(ctx, http.MethodPost, "menu/categories", nil, body, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Category, resp, nil
}

// DeleteCategory removes an empty category (DELETE /api/menu/categories/{id}).
func (s *OrderingMenuService) DeleteCategory(ctx context.Context, id string) (*Response, error) {
	return s.client.ordering(ctx, http.MethodDelete, "menu/categories/"+url.PathEscape(id), nil, nil, nil, credOrdering)
}

// CreateItem adds an item (POST /api/menu/items); Available nil means true.
func (s *OrderingMenuService) CreateItem(ctx context.Context, m *MenuItem) (*MenuItem, *Response, error) {
	ctx = creating(ctx)
	var out struct {
		Item *MenuItem `json:"item"`
	}
	resp, err := s.client.ordering(ctx, http.MethodPost, "menu/items", nil, m, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Item, resp, nil
}

// UpdateItem replaces an item (PUT /api/menu/items/{id}).
func (s *OrderingMenuService) UpdateItem(ctx context.Context, id string, m *MenuItem) (*MenuItem, *Response, error) {
	var out struct {
		Item *MenuItem `json:"item"`
	}
	resp, err := s.client.ordering(ctx, http.MethodPut, "menu/items/"+url.PathEscape(id), nil, m, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Item, resp, nil
}

// DeleteItem removes an item (DELETE /api/menu/items/{id}).
func (s *OrderingMenuService) DeleteItem(ctx context.Context, id string) (*Response, error) {
	return s.client.ordering(ctx, http.MethodDelete, "menu/items/"+url.PathEscape(id), nil, nil, nil, credOrdering)
}

// ShopSettings are the shop's operational settings (docs/api/ordering.md).
type ShopSettings struct {
	OrderPrefix          string  `json:"orderPrefix"`
	TimeZone             string  `json:"timeZone"`
	ShopLat              float64 `json:"shopLat"`
	ShopLng              float64 `json:"shopLng"`
	DeliveryBaseFee      int64   `json:"deliveryBaseFee"`
	DeliveryPerKm        int64   `json:"deliveryPerKm"`
	DeliveryMaxKm        float64 `json:"deliveryMaxKm"`
	PaymentExpiryMinutes int     `json:"paymentExpiryMinutes"`
	// ShopName is the name on the shop's customer pages (at most 60
	// characters, one line); empty: the console's default ("Shop").
	ShopName string `json:"shopName"`
	// ShopTagline is a short line under the name (at most 140
	// characters, one line).
	ShopTagline string `json:"shopTagline"`
	// OpeningHours are the shop's hours as free text (at most 300
	// characters and 10 lines).
	OpeningHours string `json:"openingHours"`
}

// OrderingSettingsService reads and writes the shop's settings (ADMIN, OWNER).
type OrderingSettingsService service

// Get returns the settings (GET /api/settings).
func (s *OrderingSettingsService) Get(ctx context.Context) (*ShopSettings, *Response, error) {
	var out struct {
		Settings *ShopSettings `json:"settings"`
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "settings", nil, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Settings, resp, nil
}

// Set replaces the settings (PUT /api/settings): every field, so read
// them with Get first and change what you mean to; a refused value is an
// *Error with code INVALID_SETTINGS.
func (s *OrderingSettingsService) Set(ctx context.Context, st *ShopSettings) (*ShopSettings, *Response, error) {
	var out struct {
		Settings *ShopSettings `json:"settings"`
	}
	resp, err := s.client.ordering(ctx, http.MethodPut, "settings", nil, st, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Settings, resp, nil
}

// OrderRequest is a new order (the spec's fields).
type OrderRequest struct {
	ShippingType    string             `json:"shippingType"` // DELIVERY, PICKUP or DINE_IN
	ShippingAddress string             `json:"shippingAddress,omitempty"`
	ShippingCity    string             `json:"shippingCity,omitempty"`
	ShippingPhone   string             `json:"shippingPhone,omitempty"`
	ShippingLat     *float64           `json:"shippingLat,omitempty"`
	ShippingLng     *float64           `json:"shippingLng,omitempty"`
	Notes           string             `json:"notes,omitempty"`
	Items           []OrderItemRequest `json:"items"`
}

// OrderItemRequest is a line of an OrderRequest.
type OrderItemRequest struct {
	MenuID   string `json:"menuId"`
	Quantity int    `json:"quantity"`
	Notes    string `json:"notes,omitempty"`
}

// OrderItem is a priced line of an order.
type OrderItem struct {
	MenuID   string `json:"menuId"`
	Name     string `json:"name"`
	Price    int64  `json:"price"`
	Quantity int    `json:"quantity"`
	Notes    string `json:"notes"`
	Subtotal int64  `json:"subtotal"`
}

// OrderStatusChange is one move of an order, with who made it.
type OrderStatusChange struct {
	From string    `json:"from,omitempty"`
	To   string    `json:"to"`
	By   string    `json:"by"`
	Role string    `json:"role"`
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
}

// Order is an order as the API returns it.
type Order struct {
	ID                 string              `json:"id"`
	OrderNumber        string              `json:"orderNumber"`
	UserID             string              `json:"userId"`
	Status             string              `json:"status"`
	Items              []OrderItem         `json:"items"`
	ItemsTotal         int64               `json:"itemsTotal"`
	ShippingCost       int64               `json:"shippingCost"`
	TotalPrice         int64               `json:"totalPrice"`
	ShippingType       string              `json:"shippingType"`
	ShippingAddress    string              `json:"shippingAddress"`
	ShippingCity       string              `json:"shippingCity"`
	ShippingPhone      string              `json:"shippingPhone"`
	ShippingLat        *float64            `json:"shippingLat"`
	ShippingLng        *float64            `json:"shippingLng"`
	Notes              string              `json:"notes"`
	InvoiceID          string              `json:"invoiceId"`
	ProviderPaymentURL string              `json:"providerPaymentUrl"`
	PaymentMethod      string              `json:"paymentMethod"`
	CreatedAt          time.Time           `json:"createdAt"`
	UpdatedAt          time.Time           `json:"updatedAt"`
	ExpiresAt          *time.Time          `json:"expiresAt"`
	History            []OrderStatusChange `json:"history"`
}

// OrdersService places and follows orders.
type OrdersService service

// Create places an order (POST /api/orders): 201 with the order in
// PENDING_PAYMENT, priced by the portal, and its payment URL.
func (s *OrdersService) Create(ctx context.Context, req *OrderRequest) (*Order, *Response, error) {
	ctx = creating(ctx)
	var out struct {
		Order *Order `json:"order"`
	}
	resp, err := s.client.ordering(ctx, http.MethodPost, "orders", nil, req, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Order, resp, nil
}

// List returns the user's own orders, newest first (GET /api/orders).
func (s *OrdersService) List(ctx context.Context) ([]Order, *Response, error) {
	var out struct {
		Orders []Order `json:"orders"`
	}
	resp, err := s.client.ordering(ctx, http.MethodGet, "orders", nil, nil, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Orders, resp, nil
}

// Get returns an order with its history (GET /api/orders/{id}).
func (s *OrdersService) Get(ctx context.Context, id string) (*Order, *Response, error) {
	return s.orderCall(ctx, http.MethodGet, id, "", nil)
}

// SetStatus moves an order (POST /api/orders/{id}/status), as the state
// machine lets the user's role.
func (s *OrdersService) SetStatus(ctx context.Context, id, status, note string) (*Order, *Response, error) {
	return s.orderCall(ctx, http.MethodPost, id, "/status", map[string]string{"status": status, "note": note})
}

// Cancel cancels an order (POST /api/orders/{id}/cancel).
func (s *OrdersService) Cancel(ctx context.Context, id string) (*Order, *Response, error) {
	return s.orderCall(ctx, http.MethodPost, id, "/cancel", nil)
}

func (s *OrdersService) orderCall(ctx context.Context, method, id, suffix string, body any) (*Order, *Response, error) {
	var out struct {
		Order *Order `json:"order"`
	}
	resp, err := s.client.ordering(ctx, method, "orders/"+url.PathEscape(id)+suffix, nil, body, &out, credOrdering)
	if err != nil {
		return nil, resp, err
	}
	return out.Order, resp, nil
}
