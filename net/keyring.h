/*
 * keyring.h: keyring files, in Ceph's layout (mapmon(8), FILES):
 *
 *	[client.admin]
 *		key = BASE64
 *		caps mon = "allow *"
 *
 * one section per entity, its 32-byte key in base64 (44 characters) and
 * any number of `caps SERVICE = "CAPS"' lines (the quotes are optional).
 * Blank lines and lines starting with '#' or ';' are ignored; anything
 * else is an error.  A keyring holds secrets: keyring_load() refuses one
 * that group or others may read or write, and keyring_write() makes files
 * of mode 0600.
 *
 * Errors follow common/mapmon.h: -1 (or NULL) and a one-line *cause that
 * the caller frees, "PATH:LINE: message" for what is wrong inside a file.
 * Key bytes are wiped (OPENSSL_cleanse) when a keyring is freed.
 */
#ifndef KEYRING_H
#define KEYRING_H

#include <stddef.h>
#include <stdint.h>

/* The length of every mapmon key, in bytes. */
#define KEYRING_KEY_LEN 32
/* The largest keyring file read. */
#define KEYRING_MAX_FILE (1024 * 1024)
/* The longest entity name ("client.NAME"). */
#define KEYRING_NAME_MAX 64

struct keyring_cap {
	char *service; /* "mon" */
	char *cap;     /* "allow *" */
};

struct keyring_entity {
	char *name;
	uint8_t key[KEYRING_KEY_LEN];
	struct keyring_cap *caps;
	size_t ncaps;
};

struct keyring {
	struct keyring_entity *entities;
	size_t n;
};

/*
 * Read and parse the keyring file at path.  Returns 0 with *out (the
 * caller frees it with keyring_free()), or -1 with *cause: the file cannot
 * be read (its path and strerror), is not a regular file, is larger than
 * KEYRING_MAX_FILE, may be read or written by group or others ("chmod 600"
 * is suggested), or does not parse.
 */
int keyring_load(const char *path, struct keyring **out, char **cause);

/*
 * Parse the text p[0..len); where names the text in messages (a path).
 * Returns 0 with *out, or -1 with *cause naming the line: a line outside a
 * section, a section without a key, a key that is not base64 of exactly
 * KEYRING_KEY_LEN bytes (a Ceph key, 28 bytes, says so), a key given
 * twice, an entity given twice, an unknown setting.
 */
int keyring_parse(const char *p, size_t len, const char *where,
    struct keyring **out, char **cause);

/* The entity named name, or NULL (borrowed from k). */
const struct keyring_entity *keyring_find(const struct keyring *k,
    const char *name);

/*
 * Add an entity (name, key and caps copied); caps holds ncaps pairs of
 * service and cap strings, caps[2i] and caps[2i + 1].  An entity of that
 * name already in k is replaced.
 */
void keyring_add(struct keyring *k, const char *name,
    const uint8_t key[KEYRING_KEY_LEN], const char *const *caps, size_t ncaps);

/* A new, empty keyring (keyring_free() it). */
struct keyring *keyring_new(void);

/*
 * The text of k in the layout above, NUL-terminated (the caller frees it;
 * it holds keys: wipe it).
 */
char *keyring_format(const struct keyring *k);

/*
 * Write k to a new file at path, mode 0600, and fsync it.  An existing
 * file is not replaced: -1 with *cause saying it exists.  On any failure
 * nothing is left at path.
 */
int keyring_write(const char *path, const struct keyring *k, char **cause);

/* Free k and wipe its keys; NULL is allowed. */
void keyring_free(struct keyring *k);

#endif /* KEYRING_H */
