package ordering

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// MessageStatus is the state of an outbound message.
type MessageStatus string

// The states of an outbound message. QUEUED messages wait (NotBefore);
// SENDING ones are leased to one instance; SENT went to the gateway;
// DROPPED were refused by the gate (no consent, a broadcast) and FAILED
// could not be sent, each with its reason.
const (
	MessageQueued  MessageStatus = "QUEUED"
	MessageSending MessageStatus = "SENDING"
	MessageSent    MessageStatus = "SENT"
	MessageDropped MessageStatus = "DROPPED"
	MessageFailed  MessageStatus = "FAILED"
)

// OutboundMessage is a message to a customer, queued in the store.
type OutboundMessage struct {
	ID         string        `json:"id"`
	Channel    string        `json:"channel"`
	To         string        `json:"to"`
	Text       string        `json:"text"`
	OrderID    string        `json:"orderId,omitempty"`
	Status     MessageStatus `json:"status"`
	Reason     string        `json:"reason,omitempty"`
	Attempts   int           `json:"attempts"`
	CreatedAt  time.Time     `json:"createdAt"`
	NotBefore  time.Time     `json:"notBefore"`
	SentAt     *time.Time    `json:"sentAt,omitempty"`
	LeaseOwner string        `json:"leaseOwner,omitempty"`
	LeaseUntil *time.Time    `json:"leaseUntil,omitempty"`
}

// Messenger sends a text to a number through the messaging gateway.
type Messenger interface {
	Send(ctx context.Context, to, text string) error
}

// Outbound sending.
const (
	// DefaultChannel names the shop's one messenger number in the gate.
	DefaultChannel = "shop"
	// sendLease is how long a claimed message is the claimer's: longer
	// than a send may take (the WAHA client's timeout is 15 s). A message
	// still SENDING after its lease was interrupted (a crash, a kill) and
	// is not sent again: the gateway may have sent it.
	sendLease = 30 * time.Second
	// maxSendAttempts bounds the retries of a message the gateway refused.
	maxSendAttempts = 5
	// senderIdle is how long the sender sleeps when nothing is due.
	senderIdle = time.Second
)

// queueMessage queues text for the customer of order o, if the order has
// one (a walk-in has none).
func (s *Service) queueMessage(ctx context.Context, o Order, text string) {
	if o.Counter {
		return
	}
	u, err := s.store.GetOrderingUser(ctx, o.UserID)
	if err != nil {
		s.log.Error("ordering: message: the order's customer", "order", o.OrderNumber, "err", err)
		return
	}
	if err := s.store.EnqueueMessage(ctx, *s.newMessage(o, u.MessengerNumber, text)); err != nil {
		s.log.Error("ordering: queue message", "order", o.OrderNumber, "err", err)
		return
	}
	s.wakeSender()
}

// newMessage returns a queued message of text for the order's customer at
// number.
func (s *Service) newMessage(o Order, number, text string) *OutboundMessage {
	now := s.cfg.Now().UTC()
	return &OutboundMessage{ID: newID(), Channel: DefaultChannel, To: number, Text: text, OrderID: o.ID,
		Status: MessageQueued, CreatedAt: now, NotBefore: now}
}

// statusText is the message a customer gets when the order reaches a state.
func statusText(o Order, note string) string {
	switch o.Status {
	case StatusPendingPayment:
		if len(o.History) > 1 {
			return fmt.Sprintf("Order %s: your payment receipt was not accepted (%s). Please pay Rp %d again: %s",
				o.OrderNumber, note, o.TotalPrice, o.ProviderPaymentURL)
		}
		return fmt.Sprintf("Order %s received: Rp %d. Pay here: %s", o.OrderNumber, o.TotalPrice, o.ProviderPaymentURL)
	case StatusPaid:
		return fmt.Sprintf("Order %s is paid. Thank you! We are on it.", o.OrderNumber)
	case StatusReady:
		if o.ShippingType == ShippingDelivery {
			return fmt.Sprintf("Order %s is ready and leaves soon.", o.OrderNumber)
		}
		return fmt.Sprintf("Order %s is ready to collect.", o.OrderNumber)
	case StatusOutForDelivery:
		return fmt.Sprintf("Order %s is on its way.", o.OrderNumber)
	case StatusCancelled:
		return fmt.Sprintf("Order %s was cancelled.", o.OrderNumber)
	case StatusExpired:
		return fmt.Sprintf("Order %s expired before it was paid.", o.OrderNumber)
	case StatusRefunded:
		return fmt.Sprintf("Order %s was refunded.", o.OrderNumber)
	}
	return ""
}

// wakeSender tells this instance's sender that a message is queued.
func (s *Service) wakeSender() {
	select {
	case s.sendWake <- struct{}{}:
	default:
	}
}

// RunSender sends the queued messages through m until ctx is done: each
// message is claimed (a lease in the store, so that one instance sends it),
// checked against the gate (consent, warm-up quota, spacing with jitter,
// broadcasts) and sent, or held, dropped or failed with its reason. A
// message never goes out twice: one interrupted while SENDING is marked
// FAILED, not sent again.
func (s *Service) RunSender(ctx context.Context, m Messenger, owner string) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.sendWake:
		}
		wait, err := s.SendNext(ctx, m, owner)
		if err != nil && ctx.Err() == nil {
			s.log.Error("ordering: sending messages", "err", err)
			wait = senderIdle
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(wait)
	}
}

// SendNext handles the next due message, if any, for the sender owner and
// returns how long to wait before the next: RunSender's one step.
func (s *Service) SendNext(ctx context.Context, m Messenger, owner string) (time.Duration, error) {
	now := s.cfg.Now().UTC()
	msg, ok, err := s.store.ClaimMessage(ctx, now, sendLease, owner)
	if err != nil || !ok {
		return senderIdle, err
	}
	finish := func(fn func(*OutboundMessage)) error {
		_, err := s.store.FinishMessage(ctx, msg.ID, owner, func(x *OutboundMessage) error {
			fn(x)
			x.LeaseOwner, x.LeaseUntil = "", nil
			return nil
		})
		return err
	}
	if _, ok, err := s.store.GetConsent(ctx, msg.To); err != nil {
		return 0, err
	} else if !ok {
		s.log.Warn("ordering: message dropped: no consent", "to", msg.To)
		return 0, finish(func(x *OutboundMessage) {
			x.Status, x.Reason = MessageDropped, "no consent: the number never messaged the shop nor was registered"
		})
	}
	var decision string
	var retryAt time.Time
	if _, err := s.store.UpdateGate(ctx, msg.Channel, func(g *GateState) error {
		s.mu.Lock()
		decision, retryAt = g.admit(msg.To, msg.Text, now, s.rng)
		s.mu.Unlock()
		return nil
	}); err != nil {
		return 0, err
	}
	switch decision {
	case GateBroadcast:
		s.log.Warn("ordering: message blocked: the same text to too many numbers", "to", msg.To)
		return 0, finish(func(x *OutboundMessage) {
			x.Status, x.Reason = MessageDropped, fmt.Sprintf("blocked: identical text to more than %d numbers within a day", BroadcastLimit)
		})
	case GateWait, GateHold:
		reason := ""
		if decision == GateHold {
			reason = "held: the channel's daily quota (warm-up) is used"
		}
		return retryAt.Sub(now), finish(func(x *OutboundMessage) {
			x.Status, x.NotBefore, x.Reason = MessageQueued, retryAt, reason
		})
	}
	sendErr := m.Send(ctx, msg.To, msg.Text)
	sentAt := s.cfg.Now().UTC()
	if sendErr != nil {
		s.log.Warn("ordering: the gateway refused a message", "to", msg.To, "attempt", msg.Attempts+1, "err", sendErr)
		return 0, finish(func(x *OutboundMessage) {
			x.Attempts++
			if x.Attempts >= maxSendAttempts {
				x.Status, x.Reason = MessageFailed, "the gateway refused it: "+sendErr.Error()
				return
			}
			x.Status, x.Reason = MessageQueued, "retrying: "+sendErr.Error()
			x.NotBefore = sentAt.Add(time.Duration(1<<x.Attempts) * 10 * time.Second)
		})
	}
	return 0, finish(func(x *OutboundMessage) {
		x.Status, x.Reason, x.SentAt = MessageSent, "", &sentAt
		x.Attempts++
	})
}

// Messages returns the latest outbound messages, newest first (owners read
// what the shop sent, and why a message was not).
func (s *Service) Messages(ctx context.Context, limit int) ([]OutboundMessage, error) {
	list, err := s.store.ListMessages(ctx, limit)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	return list, nil
}

// StandInMessenger is the built-in gateway stand-in's sender: it sends
// nothing; the messages stay readable in the queue (SENT).
type StandInMessenger struct{}

// Send accepts the message.
func (StandInMessenger) Send(context.Context, string, string) error { return nil }

// WAHAMessenger sends through a WAHA-compatible HTTP API
// (POST {URL}/api/sendText {session, chatId, text}, header X-Api-Key).
type WAHAMessenger struct {
	URL, Key, Session string
	Client            *http.Client
}

// Send posts the text to the number's chat.
func (w WAHAMessenger) Send(ctx context.Context, to, text string) error {
	body, err := json.Marshal(map[string]string{"session": w.Session, "chatId": to + "@c.us", "text": text})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(w.URL, "/")+"/api/sendText", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if w.Key != "" {
		req.Header.Set("X-Api-Key", w.Key)
	}
	resp, err := w.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return errors.New("gateway answered " + resp.Status)
	}
	return nil
}

// HousekeepingInterval is how often RunHousekeeping prunes.
const HousekeepingInterval = time.Hour

// loginRecordKept is how long expired login tokens and spent keys stay
// (for support questions about a failed login), before they are pruned.
const loginRecordKept = 24 * time.Hour

// MessageRetention is how long finished outbound messages stay readable
// (GET /api/gateway/messages) before they are pruned.
const MessageRetention = 90 * 24 * time.Hour

// RunHousekeeping prunes expired login tokens and spent keys (webhook ids,
// solved challenges) and the finished messages older than
// MessageRetention every HousekeepingInterval until ctx is done, so that
// they do not grow without bound.
func (s *Service) RunHousekeeping(ctx context.Context) {
	t := time.NewTicker(HousekeepingInterval)
	defer t.Stop()
	for {
		now := s.cfg.Now().UTC()
		n, err := s.store.PruneLogins(ctx, now.Add(-loginRecordKept))
		if err == nil {
			var m int64
			m, err = s.store.PruneMessages(ctx, now.Add(-MessageRetention))
			n += m
		}
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Error("ordering: housekeeping", "err", err)
		case n > 0:
			s.log.Info("ordering: old login records and messages pruned", "removed", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
