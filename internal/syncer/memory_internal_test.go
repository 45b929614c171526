package syncer

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// memorySchema is the schema of the pages memoryApp serves.
const memorySchema = `{"item":{"id":{"id":"id","name":"ID","type":"id"},
	"name":{"id":"name","name":"Name","type":"text"},
	"size":{"id":"size","name":"Size","type":"number","subType":"integer"},
	"price":{"id":"price","name":"Price","type":"number"},
	"done":{"id":"done","name":"Done","type":"text","subType":"boolean"},
	"due":{"id":"due","name":"Due","type":"date","subType":"day"},
	"tags":{"id":"tags","name":"Tags","type":"array[text]"},
	"mail":{"id":"mail","name":"Mail","type":"text","subType":"email"}}}`

// writePage writes one page of n items, the last, to w (an item at a
// time: the app holds none of it) and returns its size.
func writePage(w io.Writer, n int) int64 {
	cw := &countingWriter{w: w}
	io.WriteString(cw, `{"synchronizationType":"full","items":[`)
	for i := range n {
		if i > 0 {
			io.WriteString(cw, ",")
		}
		fmt.Fprintf(cw, `{"id":"item-%07d","name":"Item number %d of the page","size":%d,"price":%d.25,"done":%v,"due":"2024-03-%02d","tags":["a%d","b"],"mail":"user%d@example.com","ignored":{"deep":[1,2,3]}}`,
			i, i, i, i, i%2 == 0, 1+i%28, i%7, i)
	}
	io.WriteString(cw, `],"pagination":{"hasNext":false}}`)
	return cw.n
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// memoryApp serves one page of n items, gzip-compressed when gz is set.
func memoryApp(t testing.TB, n int, gz bool) *httptest.Server {
	t.Helper()
	return stubApp(t, "mem", "Mem", `{"types":[{"id":"item","name":"Items"}]}`, memorySchema, func(w http.ResponseWriter, _ *http.Request) {
		if gz {
			w.Header().Set("Content-Encoding", "gzip")
			z := gzip.NewWriter(w)
			writePage(z, n)
			z.Close()
			return
		}
		writePage(w, n)
	})
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// A page is held in memory, decoded and converted, at a small multiple of
// its size: the live heap growth when the page is about to be written is
// measured against the page's size (plain and gzip-compressed answers).
func TestPageMemory(t *testing.T) {
	// Not parallel: it measures the process's heap.
	const n = 8000
	size := writePage(io.Discard, n)
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprint("gzip=", gz), func(t *testing.T) {
			srv := memoryApp(t, n, gz)
			st := openTestStore(t)
			e, err := newEngine(st, Options{AppURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			base := liveHeap()
			var held int64
			e.beforeWrite = func() { held = max(held, liveHeap()-base) }
			rep, err := e.bounded(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Types[0].Created != n {
				t.Fatalf("report: %+v", rep.Types[0])
			}
			ratio := float64(held) / float64(size)
			t.Logf("page %d bytes, %d held when written (%.2f×)", size, held, ratio)
			if ratio > 4 {
				t.Errorf("a page of %d bytes holds %d bytes when written (%.1f× its size, want at most 4×)", size, held, ratio)
			}
		})
	}
}

// A gzip answer that decompresses past MaxBody is refused with the limit
// named, after reading no more than the limit; nothing is written.
func TestGzipBomb(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	io.WriteString(zw, `{"items":[{"id":"a","name":"`)
	zw.Write(bytes.Repeat([]byte("x"), 64<<20))
	io.WriteString(zw, `"}]}`)
	zw.Close()
	bomb := z.Bytes() // 64 MiB in about 64 KiB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	}))
	defer srv.Close()
	c, err := newClient(srv.URL, nil, time.Minute, limit, Retry{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	tm := &typeMap{AppType: "item", Store: "x/item", Fields: map[string]*fieldMap{"name": {AppID: "name", Kind: kText}}}
	_, err = c.fetchPage(context.Background(), map[string]any{}, pageDecoder{space: "x", tm: tm, page: 1})
	var ae *AppError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes", limit)) {
		t.Fatalf("err = %v, want the limit named", err)
	}
}
