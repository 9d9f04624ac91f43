package report

import (
	"encoding/hex"
	"path"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// "crashpad_info": Crashpad's annotations (MD_CRASHPAD_INFO_STREAM), which
// rust-minidump's JSON does not carry yet; its approved pull request #1166
// adds a "crashpad_info" key (null without the stream). We write the key
// only when the dump has the stream, so that rust-minidump's current
// snapshots still match every leaf.

// JSONCrashpadInfo is "crashpad_info".
type JSONCrashpadInfo struct {
	ClientID          string               `json:"client_id"`
	ModuleList        []JSONCrashpadModule `json:"module_list"`
	ReportID          string               `json:"report_id"`
	SimpleAnnotations map[string]string    `json:"simple_annotations"`
	Version           uint32               `json:"version"`
}

// JSONCrashpadModule is the annotations one module recorded.
type JSONCrashpadModule struct {
	AnnotationObjects []JSONCrashpadAnnotation `json:"annotation_objects"`
	ListAnnotations   []string                 `json:"list_annotations"`
	// Module is the module's file name, null when the index names no
	// module of the module list.
	Module            *string           `json:"module"`
	ModuleIndex       uint32            `json:"module_index"`
	SimpleAnnotations map[string]string `json:"simple_annotations"`
}

// JSONCrashpadAnnotation is an annotation object: a string (type 1) is
// given as text, any other type's bytes in hex.
type JSONCrashpadAnnotation struct {
	Name  string `json:"name"`
	Type  uint16 `json:"type"`
	Value string `json:"value"`
}

func (b *jsonBuilder) buildCrashpadInfo() {
	ci := b.st.Facts.Crashpad
	if ci == nil {
		return
	}
	out := &JSONCrashpadInfo{
		ClientID: ci.ClientID.String(), ReportID: ci.ReportID.String(), Version: ci.Version,
		SimpleAnnotations: keyValues(ci.SimpleAnnotations), ModuleList: []JSONCrashpadModule{},
	}
	for _, m := range ci.Modules {
		jm := JSONCrashpadModule{ModuleIndex: m.ModuleIndex, ListAnnotations: m.ListAnnotations,
			SimpleAnnotations: keyValues(m.SimpleAnnotations), AnnotationObjects: []JSONCrashpadAnnotation{}}
		if jm.ListAnnotations == nil {
			jm.ListAnnotations = []string{}
		}
		if int(m.ModuleIndex) < len(b.st.Modules) {
			name := path.Base(strings.ReplaceAll(b.st.Modules[m.ModuleIndex].CodeFile, "\\", "/"))
			jm.Module = &name
		}
		for _, a := range m.AnnotationObjects {
			v := hex.EncodeToString(a.Value)
			if a.Type == 1 {
				v = string(a.Value)
			}
			jm.AnnotationObjects = append(jm.AnnotationObjects, JSONCrashpadAnnotation{Name: a.Name, Type: a.Type, Value: v})
		}
		out.ModuleList = append(out.ModuleList, jm)
	}
	b.r.CrashpadInfo = out
}

// keyValues makes a JSON object of annotations; of repeated keys the last
// wins.
func keyValues(kvs []minidump.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}
