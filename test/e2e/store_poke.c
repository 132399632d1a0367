/*
 * store_poke.c: test helper: put one record into an existing store,
 * bypassing the checks of mapmon-store import, to make a store whose format
 * record is newer or malformed.
 *
 *   store_poke DIR KEY VALUE_HEX     (KEY escaped as mapmon-store dump
 *                                      writes it)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapmon.h"
#include "store/store.h"

int
main(int argc, char **argv)
{
	struct store_options o;
	struct store_batch *b;
	struct store *s;
	uint8_t *key, *val;
	size_t klen, vlen, i;
	char *cause = NULL;
	unsigned int byte;

	if (argc != 4 || strlen(argv[3]) % 2 != 0) {
		fprintf(stderr, "usage: store_poke DIR KEY VALUE_HEX\n");
		return MAPMON_EXIT_USAGE;
	}
	if (store_key_unescape(argv[2], &key, &klen, &cause) != 0) {
		fprintf(stderr, "store_poke: %s\n", cause);
		return MAPMON_EXIT_USAGE;
	}
	vlen = strlen(argv[3]) / 2;
	val = xmalloc(vlen + 1);
	for (i = 0; i < vlen; i++) {
		if (sscanf(argv[3] + 2 * i, "%2x", &byte) != 1) {
			fprintf(stderr, "store_poke: bad hex value\n");
			return MAPMON_EXIT_USAGE;
		}
		val[i] = (uint8_t)byte;
	}
	store_options_defaults(&o);
	if (store_open(argv[1], &o, 0, &s, &cause) != 0) {
		fprintf(stderr, "store_poke: %s\n", cause);
		return 1;
	}
	b = store_batch_new();
	store_batch_put(b, key, klen, val, vlen);
	if (store_commit(s, b, &cause) != 0) {
		fprintf(stderr, "store_poke: %s\n", cause);
		return 1;
	}
	store_batch_free(b);
	store_close(s);
	free(key);
	free(val);
	return 0;
}
