// Package localetcd stores the API server's resources in its embedded
// etcd member through one in-process client.
//
// k8s.io/apiserver's storage factory gives every resource its own etcd
// client, each a gRPC connection: with the embedded member that is ~45
// unix-socket connections inside one process, every request and watch
// event marshalled into protobuf, framed into HTTP/2, written to the
// socket and read, unframed and unmarshalled again on the other side,
// and ~11 goroutines and their buffers per connection (~520 goroutines
// at idle). When the member runs in this process, Backend instead makes
// every resource's store (k8s.io/apiserver's etcd3 store; Raw) over one
// client
// whose calls go straight into the member's gRPC service implementations
// (etcd's v3client, the in-process client etcd's own proxies use). What
// a request sees is the member's answer unchanged: the same KV, Watch
// and Lease services, quota checks included; only the transport is gone.
//
// The server gives Raw to versionshare.WrapGetter, which puts the watch
// cache over it as StorageWithCacher would. With --etcd-servers (an
// external cluster) the server keeps k8s.io/apiserver's clients.
package localetcd
