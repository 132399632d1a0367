/*
 * placement.h: which OSDs hold a PG (mapmon-protocol(7)), computed by anyone who holds
 * the osdmap: the monitor, the CLI's `pg map`, the OSD simulator.
 *
 * A PG (pool, seed) goes to the `size` eligible OSDs with the highest straw2
 * draw, draw = ln(u) / weight, where u is a hash of (pool, seed, osd id)
 * mapped into (0, 1].  The whole function is integer arithmetic, so every
 * platform computes the same sets bit for bit; mapmon-protocol(7) describes
 * it exactly enough to reimplement:
 *
 *   h    = placement_hash(pool, seed, osd)      splitmix64 (see placement.c)
 *   u    = (h >> 32) + 1                         in [1, 2^32], u / 2^32 in (0, 1]
 *   ln   = placement_ln(u)                       ~ ln(u / 2^32) * 2^32, <= 0,
 *                                                non-decreasing in u
 *   draw = ln * 65536 / weight16                 C division (toward zero)
 *
 * The up set lists the chosen OSDs by draw, highest first; equal draws are
 * ordered by higher u, then lower id.  Because placement_ln() is monotone,
 * when every eligible OSD has the same weight the order is simply (u desc,
 * id asc): placement_map_pg() then skips the division.
 *
 * Adding or removing an OSD only moves the PGs whose set gains or loses it;
 * every other PG keeps its up set, order included.
 */
#ifndef PLACEMENT_H
#define PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

/* The largest pool size, and so the longest up set. */
#define PLACEMENT_MAX_SIZE 10

/* Weights are 16.16 fixed point: 1.0 is 0x10000. */
#define PLACEMENT_WEIGHT_ONE 0x10000

/* u lives in [1, 2^PLACEMENT_U_BITS]. */
#define PLACEMENT_U_BITS 32

/* placement_ln(): its table has 2^PLACEMENT_LN_TABLE_BITS + 1 entries. */
#define PLACEMENT_LN_TABLE_BITS 10
#define PLACEMENT_LN_TABLE_SIZE ((1 << PLACEMENT_LN_TABLE_BITS) + 1)

/* round(ln(2) * 2^32): placement_ln(u) = -32 * this when u = 1. */
#define PLACEMENT_LN2_Q32 2977044472LL

/*
 * One OSD as placement sees it.  An OSD takes part only when eligible is
 * nonzero (the caller sets it for up && in && weight > 0), weight16 > 0 and
 * id >= 0.  weight16 is the effective weight, crush weight times reweight,
 * in 16.16 fixed point (see placement_weight16_fixed()).
 */
struct placement_osd {
	int32_t id;
	int eligible;
	uint32_t weight16;
};

/* The eligible OSDs, sorted by id, and whether their weights are equal. */
struct placement;

/*
 * Prepare placement over the n OSDs of osds (copied; osds may be freed at
 * once).  Entries that are not eligible are dropped; when an id appears more
 * than once, its first entry counts and later ones are ignored.  n may be 0
 * (every PG then maps to an empty set).  Never fails; free the result with
 * placement_free().
 */
struct placement *placement_new(const struct placement_osd *osds, size_t n);

/* Free a placement; NULL is allowed. */
void placement_free(struct placement *);

/* How many OSDs are eligible. */
size_t placement_eligible(const struct placement *);

/* Nonzero when every eligible OSD has the same weight (the fast path). */
int placement_equal_weights(const struct placement *);

/*
 * The up set of PG (pool, seed) with `size` members into up[] (room for
 * min(size, PLACEMENT_MAX_SIZE) entries), highest draw first.  Returns its
 * length: min(size, PLACEMENT_MAX_SIZE) normally, fewer when fewer OSDs are
 * eligible (the PG is undersized), 0 when none are or size is 0.  The
 * primary is up[0] (or -1 when the length is 0); acting is the same set.
 * The caller checks seed < pg_num; the function is defined for every value.
 * O(eligible OSDs) per call, no allocation, safe to call from many threads
 * on one placement.
 */
int placement_map_pg(const struct placement *, uint32_t pool, uint32_t seed,
    unsigned size, int32_t *up);

/*
 * The same set, always through the general path (every draw computed and
 * compared), even when the weights are equal.  placement_map_pg() must give
 * the same answer; this exists so tests and reimplementations can check it.
 */
int placement_map_pg_general(const struct placement *, uint32_t pool,
    uint32_t seed, unsigned size, int32_t *up);

/*
 * The hash's pieces, shared with the hierarchy's placement (crush.c), both
 * documented in mapmon-protocol(7): PLACEMENT_GOLDEN is splitmix64's
 * increment, placement_mix() its output function (Stafford's Mix13), and
 * placement_pgkey() the PG's key, the first output of a generator seeded
 * with pool << 32 | seed.
 */
#define PLACEMENT_GOLDEN 0x9e3779b97f4a7c15ULL

static inline uint64_t
placement_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t
placement_pgkey(uint32_t pool, uint32_t seed)
{
	return placement_mix(((uint64_t)pool << 32 | seed) + PLACEMENT_GOLDEN);
}

/*
 * The 64-bit hash of (pool, seed, osd): splitmix64 seeded by the PG,
 * documented in placement.c and mapmon-protocol(7).
 */
uint64_t placement_hash(uint32_t pool, uint32_t seed, int32_t osd);

/* u = (placement_hash() >> 32) + 1, in [1, 2^32]. */
uint64_t placement_u(uint32_t pool, uint32_t seed, int32_t osd);

/*
 * ln(u / 2^32) in 32.32 fixed point, by table and linear interpolation:
 * from -32 * PLACEMENT_LN2_Q32 at u = 1 to 0 at u = 2^32, non-decreasing in
 * u, within 2e-7 of the true value.  u below 1 counts as 1 and above 2^32 as
 * 2^32.
 */
int64_t placement_ln(uint64_t u);

/*
 * The table behind placement_ln(): entry j is round(ln(1 + j/1024) * 2^32)
 * for j = 0 .. 1024; *n gets PLACEMENT_LN_TABLE_SIZE.  Static storage.
 */
const uint32_t *placement_ln_table(size_t *n);

/*
 * The straw2 draw of osd for (pool, seed) at effective weight weight16:
 * placement_ln(u) * 65536 / weight16, in 32.32 fixed point, <= 0; higher
 * wins.  INT64_MIN when weight16 is 0 (never chosen).
 */
int64_t placement_draw(uint32_t pool, uint32_t seed, int32_t osd,
    uint32_t weight16);

/*
 * The effective weight from the osdmap's two 16.16 factors, crush weight and
 * reweight: (weight * reweight) >> 16, computed in 64 bits (rounding down),
 * UINT32_MAX when larger.  The monitor and every client must derive
 * weight16 this way, or their sets differ.  0 when either factor is 0.
 */
uint32_t placement_weight16_fixed(uint32_t weight, uint32_t reweight);

/*
 * The same from factors given as numbers (as the osdmap's JSON prints them):
 * each is first made 16.16, x * 65536 rounded to nearest with halves away
 * from zero (as osdmap_weight_from_double() does), a factor that is 0,
 * negative or not a number giving 0 and one past UINT32_MAX giving
 * UINT32_MAX; then placement_weight16_fixed().  Exact for factors printed
 * from 16.16 values.  0 when either is 0.
 */
uint32_t placement_weight16(double weight, double reweight);

#endif /* PLACEMENT_H */
