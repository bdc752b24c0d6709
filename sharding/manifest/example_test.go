package manifest_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// A manifest says per tensor where each distinct shard's image is and which devices
// load it.
func ExampleParse() {
	data, _ := os.ReadFile("testdata/merged.json")
	m, err := manifest.Parse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Mesh, m.Checksum)
	for _, t := range m.Tensors {
		for _, s := range t.Shards {
			fmt.Println(t.Name, t.Layout, s.File, s.Ranges, "on devices", s.Devices)
		}
	}
	// Output:
	// data=2,model=2 crc32c
	// x f32[16,128]{1,0} x/0_0.bin [[0 16] [0 128]] on devices [0 1]
	// x f32[16,128]{1,0} x/1_0.bin [[16 32] [0 128]] on devices [2 3]
}

// Long runs of device ids are written as text in a large mesh's manifest.
func ExampleDeviceIDs() {
	ids := make(manifest.DeviceIDs, 128)
	for i := range ids {
		ids[i] = i
	}
	js, _ := ids.MarshalJSON()
	fmt.Println(string(js), manifest.DeviceIDs{0, 1, 2, 3, 8, 9}.RunText())
	// Output:
	// "0-127" 0-3,8-9
}

// An error of a manifest's text names the tensor at fault.
func ExampleFormatError() {
	data, _ := os.ReadFile("testdata/merged.json")
	data = append([]byte(`{"tensors": [{"name": "x"}, {"name": "x"}], `), data[1:]...)
	_, err := manifest.Parse(data)
	var fe *manifest.FormatError
	fmt.Println(errors.As(err, &fe), err)
	// Output:
	// true not a valid manifest: key "tensors" is given twice
}
