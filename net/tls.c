/* tls.c: OpenSSL contexts for the optional TLS (see tls.h). */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "common/mapmon.h"
#include "net/tls.h"

const char *
tls_error_string(unsigned long err, char *buf, size_t len)
{
	const char *reason;

	if (err == 0) {
		snprintf(buf, len, "the TLS handshake failed");
		return buf;
	}
	reason = ERR_reason_error_string(err);
	snprintf(buf, len, "%s", reason != NULL ? reason : "TLS error");
	return buf;
}

/* The cause of a failed call about path: OpenSSL's reason, one line. */
static void
tls_fail(char **cause, const char *what, const char *path)
{
	char buf[256];

	tls_error_string(ERR_peek_last_error(), buf, sizeof buf);
	ERR_clear_error();
	xasprintf(cause, "%s %s: %s", what, path, buf);
}

/* A context for side (server or client), TLS 1.2 at least. */
static SSL_CTX *
tls_ctx(const SSL_METHOD *method, char **cause)
{
	SSL_CTX *ctx;

	if ((ctx = SSL_CTX_new(method)) == NULL ||
	    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
		xasprintf(cause, "OpenSSL cannot make a TLS context");
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

SSL_CTX *
tls_server_ctx(const char *cert_path, const char *key_path, char **cause)
{
	SSL_CTX *ctx;

	if ((ctx = tls_ctx(TLS_server_method(), cause)) == NULL)
		return NULL;
	if (SSL_CTX_use_certificate_chain_file(ctx, cert_path) != 1) {
		tls_fail(cause, "[net] tls_cert", cert_path);
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, key_path, SSL_FILETYPE_PEM) != 1) {
		tls_fail(cause, "[net] tls_key", key_path);
		goto fail;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		tls_fail(cause, "[net] tls_key", key_path);
		goto fail;
	}
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

SSL_CTX *
tls_client_ctx(const char *ca_path, char **cause)
{
	SSL_CTX *ctx;

	if ((ctx = tls_ctx(TLS_client_method(), cause)) == NULL)
		return NULL;
	if (SSL_CTX_load_verify_locations(ctx, ca_path, NULL) != 1) {
		tls_fail(cause, "TLS CA", ca_path);
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	return ctx;
}

int
tls_client_expect(SSL *ssl, const char *host)
{
	X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, host, &a4) == 1 ||
	    inet_pton(AF_INET6, host, &a6) == 1)
		return X509_VERIFY_PARAM_set1_ip_asc(vp, host) == 1 ? 0 : -1;
	if (SSL_set_tlsext_host_name(ssl, host) != 1)
		return -1;
	return X509_VERIFY_PARAM_set1_host(vp, host, 0) == 1 ? 0 : -1;
}
