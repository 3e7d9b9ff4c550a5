package kubectl

import (
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/testutil"
)

// TestKubeletAPISimulated drives kubectl logs, exec and port-forward
// against a pod of `svcplane node`'s simulated runtime through the built
// `svcplane server`: the log is empty, exec and port-forward fail with
// the runtime's reason (over WebSocket and SPDY), never a 500.
func TestKubeletAPISimulated(t *testing.T) {
	skipShort(t)
	c := namespace(t, "kubelet-api")
	c.ok("run", "web", "--image=nginx:1", "--port=80")
	testutil.EventuallyErr(t, 60*time.Second, "pod web Running", func() error {
		_, _, err := c.run("wait", "--for=jsonpath={.status.phase}=Running", "pod/web", "--timeout=1s")
		return err
	})
	if out := c.ok("logs", "web"); out != "" {
		t.Errorf("logs of a simulated pod: %q, want empty", out)
	}
	contains(t, "logs --tail=-2", c.fails("logs", "web", "--tail=-2"), "--tail must be greater than or equal to -1")
	contains(t, "logs of a missing container", c.fails("logs", "web", "-c", "nope"), "container nope is not valid for pod web")
	const reason = "the pod's runtime runs no process: use the netns runtime (--runtime netns)"
	for _, env := range []string{"KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true", "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"} {
		t.Setenv("KUBECTL_REMOTE_COMMAND_WEBSOCKETS", env[len("KUBECTL_REMOTE_COMMAND_WEBSOCKETS="):])
		// -n before "--": c appends it to the arguments.
		errOut := k{t: t, bin: "kubectl"}.fails("exec", "-n", c.ns, "web", "--", "echo", "hi")
		contains(t, env+" exec", errOut, "Error from server (BadRequest)", reason)
	}
	for _, ws := range []string{"true", "false"} {
		t.Setenv("KUBECTL_PORT_FORWARD_WEBSOCKETS", ws)
		contains(t, "port-forward websockets="+ws, c.fails("port-forward", "pod/web", ":80"), reason)
	}
	contains(t, "attach", c.fails("attach", "web"), "attach is not supported by svcplane's pod runtimes")
	// nodes/proxy to a kubelet API on loopback: refused as upstream
	// refuses proxying to non-global-unicast addresses.
	contains(t, "nodes/proxy", k{t: t, bin: "kubectl"}.fails("get", "--raw", "/api/v1/nodes/kt-node-0/proxy/healthz"), "address not allowed")
}
