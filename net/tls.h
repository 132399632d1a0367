/*
 * tls.h: the optional TLS of mapmon-protocol(7) ([net] tls_cert, tls_key,
 * tls_ca in mapmon.conf(5)): OpenSSL contexts for the server and the
 * client, TLS 1.2 at least.  The connections themselves are libevent's
 * OpenSSL bufferevents (net/server.c, net/client.c); the handshake and the
 * sealing of frames go on inside TLS unchanged.
 *
 * Errors follow common/mapmon.h: NULL and a one-line *cause naming the
 * file and what OpenSSL said.
 */
#ifndef TLS_H
#define TLS_H

#include <openssl/ssl.h>

/* The first byte of a TLS record that opens a handshake. */
#define TLS_HANDSHAKE_BYTE 0x16

/*
 * A server context with the certificate chain of cert_path and the key of
 * key_path (PEM), which must match.  The caller frees it (SSL_CTX_free()).
 */
SSL_CTX *tls_server_ctx(const char *cert_path, const char *key_path,
    char **cause);

/*
 * A client context that trusts only the CA certificate(s) of ca_path
 * (PEM) and refuses a peer that does not verify.  The caller frees it.
 */
SSL_CTX *tls_client_ctx(const char *ca_path, char **cause);

/*
 * Make ssl check that the peer's certificate names host: its IP address
 * for an address, else its DNS name.  0, or -1 when OpenSSL cannot.
 */
int tls_client_expect(SSL *ssl, const char *host);

/* The last OpenSSL error as one line ("certificate verify failed"). */
const char *tls_error_string(unsigned long err, char *buf, size_t len);

#endif /* TLS_H */
