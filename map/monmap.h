/*
 * monmap.h: the monitor map (mapmon-protocol(7)): the cluster's fsid and its
 * monitors.  One monitor today; the map keeps a list so the format does not
 * change when there are more.
 */
#ifndef MONMAP_H
#define MONMAP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/enc.h"

#define MONMAP_NAME_MAX 64
#define MONMAP_ADDR_MAX 64
#define MONMAP_MAX_MONS 16

struct monmap_mon {
	char name[MONMAP_NAME_MAX];
	char addr[MONMAP_ADDR_MAX];
};

struct monmap {
	char fsid[37];		/* UUID, lower-case, 36 characters */
	uint32_t epoch;
	int64_t created;	/* us */
	int64_t modified;
	size_t nmons;
	struct monmap_mon mons[MONMAP_MAX_MONS];
};

/* A new map of epoch 1 with a fresh random fsid and one monitor. */
int monmap_create(struct monmap *, const char *name, const char *addr,
    char **cause);
void monmap_encode(const struct monmap *, struct enc_buf *);
int monmap_decode(const void *p, size_t len, struct monmap *, char **cause);
/* `mon dump` shape: {"epoch","fsid","created","modified","mons":[{"rank","name","addr"}]} */
json_t *monmap_to_json(const struct monmap *);

#endif
