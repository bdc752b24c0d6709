package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
)

const (
	plotLabelW = 360 // label column, at least
	plotCharW  = 6.4 // width of an average character at font-size 11
	plotBarW   = 460 // full-scale bar length
	plotValueW = 110 // numbers right of the bars
	plotBarH   = 11
	plotGroupH = 2*plotBarH + 10
	plotTop    = 64
	plotMargin = 12
)

// plotSVG draws a horizontal bar chart: for every result the case's median GB/s and,
// under it, the fastest copy's (see result.fastestNs), each with a min–max whisker.
func plotSVG(rs []*result, title string) []byte {
	top := 0.0
	for _, r := range rs {
		top = max(top, finite(quantile(r.gbps(), 1)), finite(quantile(r.fastestGBps(), 1)))
	}
	step := niceStep(top / 5)
	top = math.Max(step, math.Ceil(top/step)*step)
	labels := make([]string, len(rs))
	labelW := plotLabelW
	for i, r := range rs {
		labels[i] = fmt.Sprintf("%s %s w=%d %s/%s", r.name, r.size, r.workers, r.kernel, r.impl)
		labelW = max(labelW, int(float64(len(labels[i]))*plotCharW)+12)
	}
	x0 := float64(plotMargin + labelW)
	scale := func(v float64) float64 { return x0 + finite(v)/top*plotBarW }

	w := plotMargin*2 + labelW + plotBarW + plotValueW
	h := plotTop + len(rs)*plotGroupH + 40
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", plotMargin, esc(title))
	fmt.Fprintf(&b, `<rect x="%d" y="32" width="12" height="10" fill="#4e79a7"/><text x="%d" y="41">relayout (median, whisker min–max)</text>`+"\n", plotMargin, plotMargin+16)
	fmt.Fprintf(&b, `<rect x="%d" y="32" width="12" height="10" fill="#bab0ac"/><text x="%d" y="41">fastest copy of the source bytes (copy(), NT or memcpy), same workers</text>`+"\n", plotMargin+250, plotMargin+266)

	// Grid and axis labels.
	bottom := plotTop + len(rs)*plotGroupH
	for v := 0.0; v <= top+step/2; v += step {
		x := scale(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, plotTop-6, x, bottom)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%s</text>`+"\n", x, bottom+14, trimFloat(v))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#444">GB/s (source bytes, 1 GB = 1e9 B)</text>`+"\n", x0+plotBarW/2, bottom+30)

	fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#444">ratio to fastest copy</text>`+"\n", x0+plotBarW+30, plotTop-10)
	for i, r := range rs {
		y := plotTop + i*plotGroupH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", plotMargin+labelW-6, y+plotBarH+4, esc(labels[i]))
		bar := func(y int, xs []float64, fill, note string) {
			m := finite(median(xs))
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
				x0, y, scale(m)-x0, plotBarH, fill, esc(fmt.Sprintf("%s: %.2f GB/s", note, m)))
			lo, hi := scale(quantile(xs, 0)), scale(quantile(xs, 1))
			mid := float64(y) + plotBarH/2
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222"/>`+"\n", lo, mid, hi, mid)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#222">%.2f</text>`+"\n", math.Max(scale(m), hi)+4, y+plotBarH-1, m)
		}
		bar(y, r.gbps(), "#4e79a7", "relayout")
		bar(y+plotBarH, r.fastestGBps(), "#bab0ac", "fastest copy ("+r.fastestName()+")")
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#444">×%.2f</text>`+"\n", x0+plotBarW+40, y+plotBarH+4, finite(median(r.ratios())))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// writeFileAtomic writes data through buffer.WriteFileAtomic: a failure leaves no partial
// file, and an existing file is replaced only when the new one is complete; a symbolic
// link is written at its target and stays. A FIFO or a character device (/dev/stdout,
// say) is written in place, as tpulayout's OUT is: renaming over it would replace it.
func writeFileAtomic(path string, data []byte) error {
	if st, err := os.Stat(path); err == nil && st.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) != 0 {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return buffer.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
