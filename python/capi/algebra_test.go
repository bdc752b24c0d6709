package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// The algebra's requests answer with the reports' JSON; bad ones with the error Python
// raises (a parse error as *layout.ParseError, for LayoutError).
func TestAlgebraRequests(t *testing.T) {
	for _, c := range []struct{ req, want string }{
		{`{"report":"cute","layout":"bf16[16,256]{1,0:T(8,128)(2,1)}","words":true}`, `"words":"((4,2),(128,2)):((128,1024),(1,512))"`},
		{`{"report":"whereis","layout":"f32[16,256]{1,0:T(8,128)}","byte":6660}`, `"elements":[{"element":1665,"padding":false,"index":[5,129]}]`},
		{`{"report":"whereis","layout":"f32[8,256]{0,1:T(8,128)}","element":200}`, `"elements":[{"element":200,"padding":true}]`},
		{`{"report":"equal","a":"f32[300]{0:T(128)}","b":"f32[300]{0:T(256)}"}`, `"equal":false,"same_map":true`},
		{`{"report":"copymap","src":"f32[24,128]{1,0}","dst":"f32[24,128]{1,0:T(8,128)}"}`, `"class":"bitcast"`},
		{`{"report":"blocks","layout":"f32[16,256]{1,0:T(8,128)}","block":[4,256]}`, `"blocks":4,"runs":2,"run_elements":512`},
		{`{"report":"padding","layout":"f32[8,256]{0,1:T(8,128)}"}`, `"padding":30720`},
	} {
		b, err := buildReport(c.req)
		if err != nil || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %s, %v; want %s", c.req, b, err, c.want)
		}
	}
	for _, c := range []struct{ req, want string }{
		{`{"report":"whereis","layout":"f32[4]"}`, "one of byte=N and element=N"},
		{`{"report":"whereis","layout":"f32[4]","byte":1,"element":1}`, "one of byte=N and element=N"},
		{`{"report":"equal","a":"f32[4]","b":"f32[5]"}`, "the dims differ: [4] vs [5]"},
		{`{"report":"copymap","src":"f32[4]","dst":"f32[4"}`, "f32[4"},
		{`{"report":"blocks","layout":"f32[16,256]","block":[0,256]}`, "want a positive size"},
		{`{"report":"cute","layout":"f32[16]","words":true}`, "--words"},
	} {
		if _, err := buildReport(c.req); err == nil || !strings.Contains(pyText(err), c.want) {
			t.Errorf("%s: error %v, want %q", c.req, err, c.want)
		}
	}
	_, err := buildReport(`{"report":"cute","layout":"f32[16,256]{1,0:T(8,128"}`)
	var pe *layout.ParseError
	if !errors.As(err, &pe) || pe.Pos != 23 {
		t.Errorf("a shape that does not parse: %v, want a *layout.ParseError at byte 23", err)
	}
}
