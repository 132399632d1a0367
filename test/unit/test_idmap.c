/* test_idmap.c: the id map: find, insert, remove, growth, collisions. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/idmap.h"

/* A caller's struct, the node not at its start. */
struct item {
	int payload;
	struct idmap_node node;
	int present;
};

static struct item *
find(const struct idmap *m, uint64_t id)
{
	struct idmap_node *n = idmap_find(m, id);

	return n != NULL ? idmap_entry(n, struct item, node) : NULL;
}

Test(idmap, empty_map_finds_nothing)
{
	struct idmap m;
	struct item it = { .node = { .id = 1 } };

	idmap_init(&m);
	cr_assert_null(idmap_find(&m, 0));
	cr_assert_null(idmap_find(&m, 1));
	cr_assert_eq(idmap_count(&m), 0);
	idmap_remove(&m, &it.node); /* not in it: nothing happens */
	cr_assert_eq(idmap_count(&m), 0);
	idmap_free(&m);
	cr_assert_null(idmap_find(&m, 1));
}

Test(idmap, sequential_ids_through_growth)
{
	enum { N = 5000 };
	struct idmap m;
	struct item *items = calloc(N, sizeof *items);
	size_t i;

	idmap_init(&m);
	for (i = 0; i < N; i++) {
		items[i].node.id = i + 1;
		items[i].payload = (int)i;
		idmap_insert(&m, &items[i].node);
		cr_assert_eq(idmap_count(&m), i + 1);
	}
	/* Doubled from IDMAP_MIN_SIZE while full: 8192 buckets for 5000. */
	cr_assert_eq(m.size, 8192);
	for (i = 0; i < N; i++) {
		cr_assert_eq(find(&m, i + 1), &items[i], "id %zu", i + 1);
		cr_assert_eq(find(&m, i + 1)->payload, (int)i);
	}
	cr_assert_null(find(&m, 0));
	cr_assert_null(find(&m, N + 1));
	for (i = 0; i < N; i += 2)
		idmap_remove(&m, &items[i].node);
	cr_assert_eq(idmap_count(&m), N / 2);
	for (i = 0; i < N; i++) {
		if (i % 2 == 0)
			cr_assert_null(find(&m, i + 1), "removed id %zu",
			    i + 1);
		else
			cr_assert_eq(find(&m, i + 1), &items[i]);
	}
	idmap_free(&m);
	cr_assert_eq(idmap_count(&m), 0);
	free(items);
}

Test(idmap, ids_of_one_bucket_chain)
{
	struct idmap m;
	struct item it[5];
	size_t i;

	idmap_init(&m);
	/* 7, 7 + 64, ...: all in bucket 7 of the first table. */
	for (i = 0; i < 5; i++) {
		it[i].node.id = 7 + i * IDMAP_MIN_SIZE;
		idmap_insert(&m, &it[i].node);
	}
	cr_assert_eq(m.size, IDMAP_MIN_SIZE);
	for (i = 0; i < 5; i++)
		cr_assert_eq(find(&m, it[i].node.id), &it[i]);
	cr_assert_null(find(&m, 7 + 5 * IDMAP_MIN_SIZE));
	/* Out of the middle, the head and the tail of the chain. */
	idmap_remove(&m, &it[2].node);
	idmap_remove(&m, &it[4].node);
	idmap_remove(&m, &it[0].node);
	cr_assert_eq(idmap_count(&m), 2);
	cr_assert_null(find(&m, it[2].node.id));
	cr_assert_null(find(&m, it[4].node.id));
	cr_assert_null(find(&m, it[0].node.id));
	cr_assert_eq(find(&m, it[1].node.id), &it[1]);
	cr_assert_eq(find(&m, it[3].node.id), &it[3]);
	/* A second removal changes nothing. */
	idmap_remove(&m, &it[2].node);
	cr_assert_eq(idmap_count(&m), 2);
	idmap_free(&m);
}

Test(idmap, large_ids)
{
	struct idmap m;
	struct item a = { .node = { .id = UINT64_MAX } };
	struct item b = { .node = { .id = UINT64_MAX - IDMAP_MIN_SIZE } };
	struct item c = { .node = { .id = 0 } };

	idmap_init(&m);
	idmap_insert(&m, &a.node);
	idmap_insert(&m, &b.node);
	idmap_insert(&m, &c.node);
	cr_assert_eq(find(&m, UINT64_MAX), &a);
	cr_assert_eq(find(&m, UINT64_MAX - IDMAP_MIN_SIZE), &b);
	cr_assert_eq(find(&m, 0), &c);
	cr_assert_null(find(&m, UINT64_MAX - 1));
	idmap_free(&m);
}

Test(idmap, free_leaves_a_usable_map)
{
	struct idmap m;
	struct item a = { .node = { .id = 3 } };

	idmap_init(&m);
	idmap_insert(&m, &a.node);
	idmap_free(&m);
	cr_assert_null(idmap_find(&m, 3));
	cr_assert_eq(idmap_count(&m), 0);
	idmap_insert(&m, &a.node);
	cr_assert_eq(find(&m, 3), &a);
	idmap_free(&m);
}

/*
 * The server's pattern: a few long-lived ids (subscribers) while many
 * later ids come and go, so that live ids spread over a range much wider
 * than the table.  Checked against a plain array after every step.
 */
Test(idmap, churn_matches_a_reference)
{
	enum { N = 20000, LIVE = 300 };
	struct idmap m;
	struct item *items = calloc(N, sizeof *items);
	size_t i, j, live = 0, next = 0;
	unsigned int seed = 12345;

	idmap_init(&m);
	for (i = 0; i < N; i++)
		items[i].node.id = i + 1;
	while (next < N) {
		if (live < LIVE || rand_r(&seed) % 2 == 0) {
			idmap_insert(&m, &items[next].node);
			items[next++].present = 1;
			live++;
		} else {
			/* Remove a random live one, sparing ids 1 to 8. */
			j = 8 + (size_t)rand_r(&seed) % (next - 8);
			if (items[j].present) {
				idmap_remove(&m, &items[j].node);
				items[j].present = 0;
				live--;
			}
		}
		cr_assert_eq(idmap_count(&m), live);
	}
	for (i = 0; i < N; i++) {
		if (items[i].present)
			cr_assert_eq(find(&m, i + 1), &items[i], "id %zu",
			    i + 1);
		else
			cr_assert_null(find(&m, i + 1), "id %zu", i + 1);
	}
	for (i = 0; i < 8; i++)
		cr_assert(items[i].present);
	idmap_free(&m);
	free(items);
}
