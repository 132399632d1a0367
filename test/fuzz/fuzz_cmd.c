/*
 * fuzz_cmd.c: libFuzzer target for what a client hands the command layer
 * (configure --enable-fuzzing, CC=clang):
 *
 *  - first byte even: the rest is a REQUEST payload: frame_parse_json(),
 *    then the table's strict checks (cmd_check()) and, for a "pg report",
 *    the PGSTAT array (pgreport_from_json());
 *  - first byte odd: the rest is a BINARY_REQUEST payload for the binary
 *    PG report (pgreport_decode()).
 *
 *	test/fuzz/fuzz_cmd -max_len=65536 NEWDIR test/fuzz/cmd
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon/cmd.h"
#include "map/pg.h"
#include "map/pgreport.h"
#include "net/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cmd_entry *e = NULL;
	struct pg_stat *pgs = NULL;
	json_t *cmd;
	char *cause = NULL, *status = NULL;
	size_t n;
	int32_t osd;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		if (pgreport_decode(data + 1, size - 1, &osd, &pgs, &n,
		    &cause) == -1)
			free(cause);
		free(pgs);
		return 0;
	}
	if ((cmd = frame_parse_json(data + 1, size - 1, &cause)) == NULL) {
		free(cause);
		return 0;
	}
	if (cmd_check(cmd, &e, &status) == 0 &&
	    strcmp(cmd_entry_prefix(e), "pg report") == 0) {
		if (pgreport_from_json(json_object_get(cmd, "pgs"), &pgs, &n,
		    &cause) == -1)
			free(cause);
		free(pgs);
	}
	free(status);
	json_decref(cmd);
	return 0;
}
