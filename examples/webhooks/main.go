// Command webhooks serves the webhooks example app (package
// [github.com/appkitgo/appkit/examples/webhooks/hooks]): a shop's orders,
// kept up to date between runs by the shop's signed webhook events. The
// shop (package [github.com/appkitgo/appkit/examples/webhooks/shop]) is
// simulated in the same process and posts its events over HTTP to the
// address the service gives on install.
//
// Environment:
//
//	PORT           port to listen on (default 8080)
//	HOST           interface to listen on (default: every one; 127.0.0.1: this machine only)
//	METRICS_ADDR   serve GET /metrics (Prometheus) on this address (default: none)
//	OTEL_*         traces by OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT; default: none)
//	SHOP_ORDERS    number of seeded orders (default 50, at most 100000)
//	WEBHOOKS_KEY   the key the webhooks' secrets derive from, 16 bytes or
//	               more; unset: a random key, so webhooks installed before
//	               a restart stop verifying
//	SHOP_ACTIVITY  a duration such as 30s: the shop changes an order that
//	               often, sending events (default: never)
//
// The shop's API token is "shop-demo". SIGINT or SIGTERM shuts the server
// down gracefully.
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/telemetry"
	"github.com/appkitgo/appkit/examples/webhooks/hooks"
	"github.com/appkitgo/appkit/examples/webhooks/shop"
)

// Token is the demo shop's API token.
const Token = "shop-demo"

func main() {
	if err := run(context.Background(), os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
}

// run serves the app configured by getenv on l (nil: on $PORT) until ctx
// is cancelled or a signal arrives.
func run(ctx context.Context, getenv func(string) string, log io.Writer, l net.Listener) error {
	addr, err := appkit.ListenAddr(getenv)
	if err != nil {
		return err
	}
	orders := 50
	if v := getenv("SHOP_ORDERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100_000 {
			return fmt.Errorf("SHOP_ORDERS: want a number 0..100000, got %q", v)
		}
		orders = n
	}
	key := []byte(getenv("WEBHOOKS_KEY"))
	if len(key) == 0 {
		key = []byte(rand.Text())
		fmt.Fprintln(log, "webhooks: WEBHOOKS_KEY is not set: a random key, webhooks installed before a restart will not verify")
	}
	var every time.Duration
	if v := getenv("SHOP_ACTIVITY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return fmt.Errorf("SHOP_ACTIVITY: want a duration of 1s or more, got %q", v)
		}
		every = d
	}
	s := shop.New(Token, orders, nil)
	app, err := hooks.New(s, hooks.Config{Key: key})
	if err != nil {
		return err
	}
	if every > 0 {
		ctx2, cancel := context.WithCancel(ctx)
		defer cancel()
		go activity(ctx2, s, every)
	}
	fmt.Fprintf(log, "webhooks: %d orders, listening on %s\n", orders, addr)
	if l == nil {
		if l, err = net.Listen("tcp", addr); err != nil {
			return err
		}
	}
	return telemetry.ServeListener(ctx, l, app.App(), getenv, log)
}

// activity moves one order a step along pending → paid → shipped every
// interval, as customers and staff would, so that webhooks see events.
func activity(ctx context.Context, s *shop.Shop, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		live, _, err := s.Orders(ctx, Token, time.Time{})
		if err != nil || len(live) == 0 {
			continue
		}
		o := live[i%len(live)]
		switch o.Status {
		case "pending":
			o.Status = "paid"
		case "paid":
			o.Status = "shipped"
		default:
			continue
		}
		s.Put(o)
		_ = s.Flush()
	}
}
