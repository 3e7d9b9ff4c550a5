// Package podtemplate defines the core/v1 podtemplates resource:
// upstream's defaults (the template's pod spec) and validation
// (ValidatePodTemplate: the template's labels, annotations and pod spec),
// and kubectl's columns.
package podtemplate
