// Package configmap defines the configmaps resource.
package configmap
