package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// asUser gives the bench server's user a client certificate as a user
// would (`svcplane kubeconfig`), binds it to clusterRole in namespace with
// a RoleBinding, and waits until RBAC lets it create Services there. It
// returns the user's client config.
func (b *server) asUser(self, user, clusterRole, namespace string) (*rest.Config, error) {
	path := filepath.Join(b.dir, "bench-user.kubeconfig")
	if out, err := exec.Command(self, "kubeconfig", "--data-dir", b.dir, "--user", user, "-o", path).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("svcplane kubeconfig: %v: %s", err, out)
	}
	ctx := context.Background()
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "bench-" + clusterRole},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
	if _, err := b.client.RbacV1().RoleBindings(namespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	uc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "services", Namespace: namespace}}}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		r, err := uc.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		return err == nil && r.Status.Allowed, nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s never allowed to create services in %s: %w", user, namespace, err)
	}
	return cfg, nil
}

// authzTotals reads the server's authorization timing
// (authorization_duration_seconds of k8s.io/apiserver's authorization filter, every result): the seconds
// spent deciding and the number of decisions.
func (b *server) authzTotals() (seconds, decisions float64, err error) {
	body, err := b.client.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, perr := strconv.ParseFloat(value, 64)
		switch {
		case perr != nil:
		case strings.HasPrefix(name, "authorization_duration_seconds_sum"):
			seconds += v
		case strings.HasPrefix(name, "authorization_duration_seconds_count"):
			decisions += v
		}
	}
	if decisions == 0 {
		return 0, 0, fmt.Errorf("no authorization_duration_seconds in /metrics")
	}
	return seconds, decisions, sc.Err()
}
