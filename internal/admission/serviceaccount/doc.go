// Package serviceaccount is the ServiceAccount admission plugin, as
// kube-apiserver's (plugin/pkg/admission/serviceaccount in
// k8s.io/kubernetes). On pod create it
//
//   - sets spec.serviceAccountName to "default" when it is empty;
//   - refuses the pod when that ServiceAccount does not exist: looked up
//     in the server's ServiceAccount informer, then with the API (the
//     "default" one ten times, 100–200 ms apart, as the serviceaccount
//     controller creates it just after its namespace), with upstream's
//     "error looking up service account <ns>/<name>: …" (the look-ups end
//     with the request's context; upstream's use none);
//   - unless automountServiceAccountToken is false (the pod's wins over
//     the ServiceAccount's), adds the projected volume kube-api-access-<5
//     random characters> (a 3607 s token at "token", ca.crt of the
//     kube-root-ca.crt ConfigMap, the namespace from the downward API;
//     defaultMode 0644) and a read-only mount of it at
//     /var/run/secrets/kubernetes.io/serviceaccount in every init and
//     regular container that has no mount at that path yet; a pod that
//     already has a kube-api-access- volume keeps it, and ephemeral
//     containers get no mount;
//   - copies the ServiceAccount's imagePullSecrets to a pod that has none;
//   - for a ServiceAccount annotated kubernetes.io/enforce-mountable-secrets
//     "true", refuses Secrets (volumes, env, envFrom, imagePullSecrets) the
//     ServiceAccount does not list.
//
// Mirror pods (annotation kubernetes.io/config.mirror) are not changed;
// they may refer to no ServiceAccount, no Secret and no ServiceAccountToken
// projection. Updates pass: the pod strategy keeps spec.serviceAccountName
// immutable. Updates of pods/ephemeralcontainers (which svcplane does not
// serve) are checked as upstream: the pod's ServiceAccount must exist and,
// when it enforces mountable secrets, the ephemeral containers may use
// only its Secrets. Messages are upstream's; test/drift runs the same pods
// through upstream's plugin.
package serviceaccount
