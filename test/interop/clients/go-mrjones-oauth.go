// Interop driver for the Go library github.com/mrjones/oauth (Debian's
// golang-github-mrjones-oauth-dev, built offline in GOPATH mode from /usr/share/gocode):
// runs the RFC 5849 three-step flow against a Latchkey-shaped server, then calls /api/me
// with the awkward parameters.
//
// Usage: go-mrjones-oauth BASE_URL (built by test/interop/drivers.ts); environment as in
// test/interop/README.md. The library signs with HMAC-SHA1, HMAC-SHA256, RSA-SHA1 and
// RSA-SHA256 and sends the protocol parameters in the Authorization header only. Its extra
// parameters (GetRequestTokenAndUrlWithParams) go into that header too, not the query or
// body: `scope` reaches the server as a non-protocol header parameter (§3.4.1.3.1).
// Requests to /api/me go through its RoundTripper (MakeHttpClient), which signs the query
// or form body of the request as this driver wrote it.
package main

import (
	"bufio"
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/mrjones/oauth"
)

type params struct {
	Query [][2]string `json:"query"`
	Form  [][2]string `json:"form"`
}

type meResult struct {
	Status int         `json:"status"`
	Body   interface{} `json:"body"`
}

func emit(message map[string]interface{}) {
	line, _ := json.Marshal(message)
	fmt.Println(string(line))
}

func fail(err error) {
	emit(map[string]interface{}{"step": "error", "message": err.Error()})
	os.Exit(1)
}

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

// encode writes pairs in order with RFC 3986 encoding (a space as %20, "+" as %2B), so the
// server decodes exactly the values sent.
func encode(pairs [][2]string) string {
	parts := make([]string, 0, len(pairs))
	for _, pair := range pairs {
		parts = append(parts, escape(pair[0])+"="+escape(pair[1]))
	}
	return strings.Join(parts, "&")
}

func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func call(client *http.Client, method, url, body string) (*meResult, error) {
	var reader io.Reader
	if body != "" || method == "POST" {
		reader = strings.NewReader(body)
	}
	request, err := http.NewRequest(method, url, reader)
	if err != nil {
		return nil, err
	}
	if method == "POST" {
		request.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	response, err := client.Do(request)
	if err != nil {
		// The library refuses some requests before sending them (RoundTrip's parseBody).
		return &meResult{Status: 0, Body: err.Error()}, nil
	}
	defer response.Body.Close()
	text, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, err
	}
	var parsed interface{}
	if json.Unmarshal(text, &parsed) != nil {
		parsed = string(text)
	}
	return &meResult{Status: response.StatusCode, Body: parsed}, nil
}

func main() {
	base := strings.TrimSuffix(os.Args[1], "/")
	method := env("OAUTH_SIGNATURE_METHOD", "HMAC-SHA1")
	if env("OAUTH_TRANSMISSION", "header") != "header" {
		fail(fmt.Errorf("mrjones/oauth sends the protocol parameters in the header only"))
	}
	var extra params
	if err := json.Unmarshal([]byte(env("INTEROP_PARAMS", `{"query":[],"form":[]}`)), &extra); err != nil {
		fail(err)
	}
	provider := oauth.ServiceProvider{
		RequestTokenUrl:   base + "/oauth/request_token",
		AuthorizeTokenUrl: base + "/oauth/authorize",
		AccessTokenUrl:    base + "/oauth/access_token",
		HttpMethod:        "POST",
	}
	hashes := map[string]crypto.Hash{"SHA1": crypto.SHA1, "SHA256": crypto.SHA256}
	var consumer *oauth.Consumer
	switch {
	case strings.HasPrefix(method, "HMAC-"):
		hash, ok := hashes[strings.TrimPrefix(method, "HMAC-")]
		if !ok {
			fail(fmt.Errorf("unsupported method %s", method))
		}
		consumer = oauth.NewCustomConsumer(os.Getenv("OAUTH_CONSUMER_KEY"), os.Getenv("OAUTH_CONSUMER_SECRET"), hash, provider, nil)
	case strings.HasPrefix(method, "RSA-"):
		hash, ok := hashes[strings.TrimPrefix(method, "RSA-")]
		if !ok {
			fail(fmt.Errorf("unsupported method %s", method))
		}
		text, err := os.ReadFile(os.Getenv("OAUTH_RSA_PRIVATE_KEY"))
		if err != nil {
			fail(err)
		}
		block, _ := pem.Decode(text)
		if block == nil {
			fail(fmt.Errorf("no PEM block in the private key file"))
		}
		key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			fail(err)
		}
		consumer = oauth.NewCustomRSAConsumer(os.Getenv("OAUTH_CONSUMER_KEY"), (*rsa.PrivateKey)(key), hash, provider, nil)
	default:
		fail(fmt.Errorf("mrjones/oauth has no %s signer", method))
	}

	var token *oauth.AccessToken
	if os.Getenv("OAUTH_TOKEN") == "" {
		additional := map[string]string{}
		if scope := os.Getenv("INTEROP_SCOPE"); scope != "" {
			additional["scope"] = scope
		}
		temporary, _, err := consumer.GetRequestTokenAndUrlWithParams("oob", additional)
		if err != nil {
			fail(err)
		}
		emit(map[string]interface{}{"step": "temporary", "token": temporary.Token})
		verifier, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		token, err = consumer.AuthorizeToken(temporary, strings.TrimSpace(verifier))
		if err != nil {
			fail(err)
		}
	} else { // token credentials issued before (migrated): no flow
		token = &oauth.AccessToken{Token: os.Getenv("OAUTH_TOKEN"), Secret: os.Getenv("OAUTH_TOKEN_SECRET")}
	}
	emit(map[string]interface{}{"step": "token", "token": token.Token})

	client, err := consumer.MakeHttpClient(token)
	if err != nil {
		fail(err)
	}
	url := base + "/api/me"
	if query := encode(extra.Query); query != "" {
		url += "?" + query
	}
	get, err := call(client, "GET", url, "")
	if err != nil {
		fail(err)
	}
	post, err := call(client, "POST", base+"/api/me", encode(extra.Form))
	if err != nil {
		fail(err)
	}
	emit(map[string]interface{}{"step": "me", "get": get, "post": post})
}
