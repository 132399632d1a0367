/* mon_conf.c: config values into store options and monitor parameters. */
#include "config.h"

#include "mon/mon_conf.h"

void
mon_conf_store_options(const struct conf *c, struct store_options *o)
{
	store_options_defaults(o);
	o->backend = conf_str(c, CONF_STORE_BACKEND);
	o->sync = conf_int(c, CONF_STORE_SYNC) == CONF_SYNC_NONE ?
	    STORE_SYNC_NONE : STORE_SYNC_COMMIT;
	o->leveldb.write_buffer_size =
	    (size_t)conf_int(c, CONF_STORE_LEVELDB_WRITE_BUFFER_SIZE);
	o->leveldb.block_size =
	    (size_t)conf_int(c, CONF_STORE_LEVELDB_BLOCK_SIZE);
	o->leveldb.cache_size =
	    (size_t)conf_int(c, CONF_STORE_LEVELDB_CACHE_SIZE);
	o->leveldb.compression = conf_int(c, CONF_STORE_LEVELDB_COMPRESSION) ==
	    CONF_COMPRESSION_SNAPPY ? STORE_COMPRESSION_SNAPPY :
	    STORE_COMPRESSION_NONE;
	o->leveldb.bloom_bits = (int)conf_int(c, CONF_STORE_LEVELDB_BLOOM_BITS);
	o->leveldb.max_open_files =
	    (int)conf_int(c, CONF_STORE_LEVELDB_MAX_OPEN_FILES);
	o->leveldb.paranoid_checks =
	    (int)conf_int(c, CONF_STORE_LEVELDB_PARANOID_CHECKS);
	o->leveldb.compact_on_start =
	    (int)conf_int(c, CONF_STORE_LEVELDB_COMPACT_ON_START);
	o->lmdb.map_size = (uint64_t)conf_int(c, CONF_STORE_LMDB_MAP_SIZE);
	o->lmdb.max_readers =
	    (unsigned int)conf_int(c, CONF_STORE_LMDB_MAX_READERS);
	o->lmdb.writemap = (int)conf_int(c, CONF_STORE_LMDB_WRITEMAP);
}

void
mon_conf_params(const struct conf *c, struct mon_params *p)
{
	mon_params_defaults(p);
	p->propose_interval_ms = conf_int(c, CONF_MON_PROPOSE_INTERVAL);
	p->propose_max_ops = conf_int(c, CONF_MON_PROPOSE_MAX_OPS);
	p->min_epochs = conf_int(c, CONF_MON_MIN_EPOCHS);
	p->pg_stale_timeout_ms = conf_int(c, CONF_MON_PG_STALE_TIMEOUT);
	p->pg_stuck_threshold_ms = conf_int(c, CONF_MON_PG_STUCK_THRESHOLD);
	p->osd_down_out_interval_ms =
	    conf_int(c, CONF_MON_OSD_DOWN_OUT_INTERVAL);
	p->osd_heartbeat_grace_ms = conf_int(c, CONF_MON_OSD_HEARTBEAT_GRACE);
	p->osd_min_down_reporters = conf_int(c,
	    CONF_MON_OSD_MIN_DOWN_REPORTERS);
	p->osd_reporter_subtree_level = crush_type_id(
	    conf_str(c, CONF_MON_OSD_REPORTER_SUBTREE_LEVEL));
	p->osd_report_timeout_ms = conf_int(c, CONF_MON_OSD_REPORT_TIMEOUT);
	p->osd_min_in_ratio = conf_float(c, CONF_MON_OSD_MIN_IN_RATIO);
	p->data_size_warn = conf_int(c, CONF_MON_DATA_SIZE_WARN);
	p->data_avail_warn = conf_int(c, CONF_MON_DATA_AVAIL_WARN);
	p->data_avail_crit = conf_int(c, CONF_MON_DATA_AVAIL_CRIT);
	p->log_max_entries = conf_int(c, CONF_MON_LOG_MAX_ENTRIES);
	p->max_pool_pg_num = conf_int(c, CONF_MON_MAX_POOL_PG_NUM);
	p->max_pg_per_osd = conf_int(c, CONF_MON_MAX_PG_PER_OSD);
	p->max_pgs = conf_int(c, CONF_MON_MAX_PGS);
	p->max_osd = conf_int(c, CONF_MON_MAX_OSD);
	p->auth_insecure = !conf_int(c, CONF_AUTH_REQUIRED) &&
	    !conf_bind_loopback(conf_str(c, CONF_MON_BIND));
	p->osd_pool_default_pg_num = conf_int(c,
	    CONF_MON_OSD_POOL_DEFAULT_PG_NUM);
	p->osd_pool_default_size = conf_int(c, CONF_MON_OSD_POOL_DEFAULT_SIZE);
	p->allow_pool_delete = (int)conf_int(c, CONF_MON_ALLOW_POOL_DELETE);
	p->allow_pool_size_one = (int)conf_int(c, CONF_MON_ALLOW_POOL_SIZE_ONE);
	p->compress_entries = (int)conf_int(c, CONF_MON_COMPRESS_ENTRIES);
}
