package apiserver

import (
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/group"
	anonymousauth "k8s.io/apiserver/pkg/authentication/request/anonymous"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/union"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// newAuthenticator authenticates client certificates signed by clientCA
// (CN = user, O = groups) and, when tokenFile is set, bearer tokens from
// that CSV file (token,user,uid,"group1,group2"), as kube-apiserver's
// --client-ca-file and --token-auth-file do. With anonymous (kube-apiserver's
// --anonymous-auth, on by default) a request with no credentials is
// system:anonymous in system:unauthenticated; bad credentials are 401
// either way. serviceAccounts (nil: none) authenticates ServiceAccount
// tokens; the token file's tokens are good for every one of apiAudiences,
// as kube-apiserver's audience-agnostic authenticators. requestHeader
// (nil: none) trusts the X-Remote-* headers of a front proxy
// (--requestheader-*), ahead of the rest as upstream.
func newAuthenticator(clientCA dynamiccertificates.CAContentProvider, requestHeader *authenticatorfactory.RequestHeaderConfig, tokenFile string, anonymous bool, serviceAccounts authenticator.Token, apiAudiences authenticator.Audiences) (authenticator.Request, error) {
	var auths []authenticator.Request
	if requestHeader != nil {
		// First, as kube-apiserver: a front proxy's request is its user's.
		auths = append(auths, authenticator.WrapAudienceAgnosticRequest(apiAudiences, requestHeaderAuthenticator(requestHeader)))
	}
	auths = append(auths, newCachedCertAuthenticator(x509request.NewDynamic(clientCA.VerifyOptions, x509request.CommonNameUserConversion), clientCA))
	if tokenFile != "" {
		tokens, err := tokenfile.NewCSV(tokenFile)
		if err != nil {
			return nil, err
		}
		auths = append(auths, bearertoken.New(authenticator.WrapAudienceAgnosticToken(apiAudiences, tokens)))
	}
	if serviceAccounts != nil {
		auths = append(auths, bearertoken.New(serviceAccounts))
	}
	authn := group.NewAuthenticatedGroupAdder(union.New(auths...))
	if anonymous {
		authn = union.NewFailOnError(authn, anonymousauth.NewAuthenticator(nil))
	}
	return authn, nil
}
