#!/bin/bash
# cli_ceph_replay.sh: a Ceph operator's whole session replayed on mapmon.
# Speaks TAP.  Needs $top_builddir (and $top_srcdir).
#
# A real Ceph 16.2.15 (one ceph-mon, one ceph-mgr, osd.0-3 in CRUSH under
# host h1 without OSD daemons, pools data (16 PGs) and meta (8 PGs), made
# by the reference's up.sh -s new) was run through the 203 invocations of
# STEPS below, in this order; its record is the ceph-reference outputs
# (SEQUENCE.md, and outputs/FILE.{plain,err,rc,json} for each).  Here the
# same words go to mapmon, in the same order, on one mapmond brought to
# the same initial state, and each invocation is one TAP case:
#   - its exit status is Ceph's;
#   - for a -f json or json-pretty one, every top-level key of Ceph's JSON
#     is in mapmon's and, where Ceph's value is a list of objects (osd
#     dump's pools and osds, pg dump's pg_stats, ...), so is every key of
#     its first element (KEYS: Ceph's keys, copied from outputs/FILE.json).
# What differs is DATA: EXCEPTIONS lists every difference left, with its
# reason, and must be exact: a difference not listed fails, and so does a
# listed one that is gone ("exception no longer needed").  The steps whose
# Ceph answer came from a daemon mapmon has no counterpart for are skipped
# (TAP SKIP), with the reason.  The end prints a summary.
#
# One backend (lmdb): the CLI's words, exit statuses and JSON keys do not
# depend on the store (cli_ceph_osd.sh runs the commands on both).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
. "$top_srcdir/test/lib/listen_lib.sh"
. "$top_srcdir/test/lib/tap_lib.sh"
. "$top_srcdir/test/lib/backend_lib.sh"
backend_init cli_ceph_replay

# The session, as SEQUENCE.md records it: the step, Ceph's exit status,
# the reference file (outputs/FILE.*) of Ceph's answer, the words after
# `ceph', and the name of Ceph's JSON keys in KEYS ("-": not JSON, or
# Ceph refused it).  Tab-separated; the # lines are SEQUENCE.md's notes of
# what happened between two steps (interlude() below does it here).
STEPS=$(cat <<'EOF'
# fresh cluster from up.sh -s new: osd.0-3 exists,new, down, in (never
# booted), pools data(1) meta(2); 10 s for the mgr to report
1	0	ceph_-s	-s	-
2	0	ceph_-s	-s -f json-pretty	status
3	0	ceph_status_-f_json	status -f json	status
4	0	ceph_health	health	-
5	0	ceph_health	health -f json-pretty	health
6	0	ceph_health_detail	health detail	-
7	0	ceph_health_detail	health detail -f json-pretty	health
8	0	ceph_mon_stat	mon stat	-
9	0	ceph_mon_stat	mon stat -f json-pretty	mon_stat
10	0	ceph_mon_dump	mon dump	-
11	0	ceph_mon_dump	mon dump -f json-pretty	mon_dump
12	0	ceph_quorum_status	quorum_status	-
13	0	ceph_quorum_status	quorum_status -f json-pretty	quorum_status
14	0	ceph_osd_dump__new	osd dump	-
15	0	ceph_osd_dump__new	osd dump -f json-pretty	osd_dump
16	0	ceph_osd_tree__new	osd tree	-
17	0	ceph_osd_tree__new	osd tree -f json-pretty	osd_tree__new
# clearing NEW on osd.0-3 in one map each: osd out 0 1 2 3; osd in 0 1 2 3
18	0	ceph_osd_out_0_1_2_3	osd out 0 1 2 3	-
19	0	ceph_osd_in_0_1_2_3	osd in 0 1 2 3	-
20	0	ceph_health_detail__down	health detail	-
21	0	ceph_health_detail__down	health detail -f json-pretty	health
22	0	ceph_-s__down	-s	-
23	0	ceph_-s__down	-s -f json-pretty	status
24	0	ceph_osd_create	osd create	-
# the json run of osd create creates one more id (5)
25	0	ceph_osd_create__json	osd create -f json-pretty	osd_create
26	0	ceph_osd_down_0	osd down 0	-
27	0	ceph_osd_out_0	osd out 0	-
28	0	ceph_osd_out_0__2	osd out 0	-
29	0	ceph_osd_in_0	osd in 0	-
30	0	ceph_osd_in_0__2	osd in 0	-
31	0	ceph_osd_reweight_1_0.5	osd reweight 1 0.5	-
32	2	ceph_osd_reweight_99_0.5	osd reweight 99 0.5	-
33	22	ceph_osd_reweight_1_2.0	osd reweight 1 2.0	-
34	0	ceph_osd_rm_5	osd rm 5	-
35	0	ceph_osd_rm_5__2	osd rm 5	-
36	0	ceph_osd_rm_99	osd rm 99	-
37	0	ceph_osd_down_99	osd down 99	-
38	0	ceph_osd_out_99	osd out 99	-
39	22	ceph_osd_out_abc	osd out abc	-
40	22	ceph_osd_out	osd out	-
41	0	ceph_osd_tree	osd tree	-
42	0	ceph_osd_tree	osd tree -f json-pretty	osd_tree
43	0	ceph_osd_dump	osd dump	-
44	0	ceph_osd_dump	osd dump -f json-pretty	osd_dump
45	0	ceph_osd_stat	osd stat	-
46	0	ceph_osd_stat	osd stat -f json-pretty	osd_stat
47	0	ceph_osd_ls	osd ls	-
48	0	ceph_osd_ls	osd ls -f json-pretty	list
49	0	ceph_osd_set_noout	osd set noout	-
50	0	ceph_osd_set_noout__2	osd set noout	-
51	0	ceph_osd_unset_noout	osd unset noout	-
52	0	ceph_osd_unset_noout__2	osd unset noout	-
53	22	ceph_osd_set_frobflag	osd set frobflag	-
54	0	ceph_osd_pool_create_rbd_32	osd pool create rbd 32	-
55	0	ceph_osd_pool_create_rbd_32__2	osd pool create rbd 32	-
56	0	ceph_osd_pool_create_rbd_64	osd pool create rbd 64	-
57	22	ceph_osd_pool_create	osd pool create	-
58	2	ceph_osd_pool_create_bad_-5	osd pool create bad -5	-
59	2	ceph_osd_pool_create_bad_abc	osd pool create bad abc	-
60	34	ceph_osd_pool_create_bad_100000	osd pool create bad 100000	-
61	34	ceph_osd_pool_create_bad_32_64	osd pool create bad 32 64	-
62	2	ceph_osd_pool_create_bad_32_32_replicated_no_such_rule	osd pool create bad 32 32 replicated no_such_rule	-
63	22	ceph_osd_pool_create_bad_32_32_erasure_no_such_profile	osd pool create bad 32 32 erasure no_such_profile	-
64	2	ceph_osd_pool_create_bad_32_32_frob	osd pool create bad 32 32 frob	-
65	22	ceph_osd_pool_create_rbd_32_32_erasure	osd pool create rbd 32 32 erasure	-
66	0	ceph_osd_pool_create_zero_0	osd pool create zero 0	-
67	0	ceph_osd_pool_delete_zero_zero_--yes-i-really-really-mean-it	osd pool delete zero zero --yes-i-really-really-mean-it	-
68	0	ceph_osd_pool_ls	osd pool ls	-
69	0	ceph_osd_pool_ls	osd pool ls -f json-pretty	list
70	0	ceph_osd_pool_ls_detail	osd pool ls detail	-
71	0	ceph_osd_pool_ls_detail	osd pool ls detail -f json-pretty	osd_pool_ls_detail
72	0	ceph_osd_pool_create_tmp_8	osd pool create tmp 8	-
73	0	ceph_osd_pool_rename_tmp_tmp2	osd pool rename tmp tmp2	-
74	2	ceph_osd_pool_rename_tmp_tmp3	osd pool rename tmp tmp3	-
75	17	ceph_osd_pool_rename_tmp2_data	osd pool rename tmp2 data	-
76	2	ceph_osd_pool_rename_nosuch_x	osd pool rename nosuch x	-
77	1	ceph_osd_pool_delete_tmp2	osd pool delete tmp2	-
78	1	ceph_osd_pool_delete_tmp2_tmp2	osd pool delete tmp2 tmp2	-
79	1	ceph_osd_pool_delete_tmp2_data_--yes-i-really-really-mean-it	osd pool delete tmp2 data --yes-i-really-really-mean-it	-
80	0	ceph_osd_pool_delete_tmp2_tmp2_--yes-i-really-really-mean-it	osd pool delete tmp2 tmp2 --yes-i-really-really-mean-it	-
81	0	ceph_osd_pool_delete_tmp2_tmp2_--yes-i-really-really-mean-it__2	osd pool delete tmp2 tmp2 --yes-i-really-really-mean-it	-
82	0	ceph_osd_pool_delete_nosuch_nosuch_--yes-i-really-really-mean-it	osd pool delete nosuch nosuch --yes-i-really-really-mean-it	-
83	0	ceph_osd_pool_set_rbd_size_2	osd pool set rbd size 2	-
84	22	ceph_osd_pool_set_rbd_size_0	osd pool set rbd size 0	-
85	22	ceph_osd_pool_set_rbd_size_20	osd pool set rbd size 20	-
86	22	ceph_osd_pool_set_rbd_frob_1	osd pool set rbd frob 1	-
87	2	ceph_osd_pool_set_nosuch_size_2	osd pool set nosuch size 2	-
88	0	ceph_osd_pool_get_rbd_size	osd pool get rbd size	-
89	0	ceph_osd_pool_get_rbd_size	osd pool get rbd size -f json-pretty	osd_pool_get_rbd_size
90	0	ceph_osd_pool_get_rbd_pg_num	osd pool get rbd pg_num	-
91	0	ceph_osd_pool_get_rbd_pg_num	osd pool get rbd pg_num -f json-pretty	osd_pool_get_rbd_pg_num
92	0	ceph_osd_pool_get_rbd_all	osd pool get rbd all	-
93	0	ceph_osd_pool_get_rbd_all	osd pool get rbd all -f json-pretty	osd_pool_get_rbd_all
94	22	ceph_osd_pool_get_rbd_frob	osd pool get rbd frob	-
95	2	ceph_osd_pool_get_nosuch_size	osd pool get nosuch size	-
96	0	ceph_osd_pool_stats	osd pool stats	-
97	0	ceph_osd_pool_stats	osd pool stats -f json-pretty	osd_pool_stats
98	0	ceph_df	df	-
99	0	ceph_df	df -f json-pretty	df
100	0	ceph_pg_stat	pg stat	-
101	0	ceph_pg_stat	pg stat -f json-pretty	pg_stat
102	0	ceph_pg_dump_summary	pg dump summary	-
103	0	ceph_pg_dump_summary	pg dump summary -f json-pretty	pg_dump_summary
104	0	ceph_pg_dump_pgs	pg dump pgs	-
105	0	ceph_pg_dump_pgs	pg dump pgs -f json-pretty	pg_dump_pgs
106	0	ceph_pg_dump_pgs_brief	pg dump pgs_brief	-
107	0	ceph_pg_dump_pgs_brief	pg dump pgs_brief -f json-pretty	pg_dump_pgs_brief
108	0	ceph_pg_ls	pg ls	-
109	0	ceph_pg_ls	pg ls -f json-pretty	pg_dump_pgs
110	0	ceph_pg_map_1.0	pg map 1.0	-
111	0	ceph_pg_map_1.0	pg map 1.0 -f json-pretty	pg_map_1.0
112	2	ceph_pg_map_99.0	pg map 99.0	-
113	0	ceph_pg_map_1.999	pg map 1.999	-
114	22	ceph_pg_map_foo	pg map foo	-
115	1	ceph_pg_1.0_query	pg 1.0 query	-
116	0	ceph_pg_dump_stuck_inactive	pg dump_stuck inactive	-
117	0	ceph_pg_dump_stuck_inactive	pg dump_stuck inactive -f json-pretty	pg_dump_stuck_inactive
118	0	ceph_pg_dump_stuck_stale	pg dump_stuck stale	-
119	0	ceph_pg_dump_stuck_stale	pg dump_stuck stale -f json-pretty	pg_dump_stuck_stale
120	0	ceph_log_last_5	log last 5	-
121	0	ceph_log_last_5	log last 5 -f json-pretty	log_last_5
122	0	ceph_config_get_mon_mon_osd_down_out_interval	config get mon mon_osd_down_out_interval	-
123	0	ceph_config_get_mon_mon_osd_down_out_interval	config get mon mon_osd_down_out_interval -f json-pretty	scalar
124	0	ceph_config_set_mon_mon_osd_down_out_interval_300	config set mon mon_osd_down_out_interval 300	-
125	0	ceph_config_get_mon_mon_osd_down_out_interval__2	config get mon mon_osd_down_out_interval	-
126	0	ceph_config_get_mon_mon_osd_down_out_interval__2	config get mon mon_osd_down_out_interval -f json-pretty	scalar
127	22	ceph_config_set_mon_no_such_option_1	config set mon no_such_option 1	-
128	22	ceph_config_set_mon_mon_osd_down_out_interval_abc	config set mon mon_osd_down_out_interval abc	-
129	0	ceph_config_rm_mon_mon_osd_down_out_interval	config rm mon mon_osd_down_out_interval	-
130	0	ceph_config_dump	config dump	-
131	0	ceph_config_dump	config dump -f json-pretty	config_dump
132	0	ceph_tell_mon.a_perf_dump	tell mon.a perf dump	-
133	0	ceph_tell_mon.a_perf_dump	tell mon.a perf dump -f json-pretty	tell_mon.a_perf_dump
134	0	ceph_daemon_mon.a_perf_dump	daemon mon.a perf dump	-
135	0	ceph_daemon_mon.a_perf_dump	daemon mon.a perf dump -f json-pretty	tell_mon.a_perf_dump
136	0	ceph_tell_mon.a_version	tell mon.a version	-
137	0	ceph_tell_mon.a_version	tell mon.a version -f json-pretty	tell_mon.a_version
138	0	ceph_mgr_stat	mgr stat	-
139	0	ceph_mgr_stat	mgr stat -f json-pretty	mgr_stat
140	0	ceph_versions	versions	-
141	0	ceph_versions	versions -f json-pretty	versions
142	22	ceph_osd_frobnicate	osd frobnicate	-
143	22	ceph_osdd_ls	osdd ls	-
144	22	ceph_osd_pool_lss	osd pool lss	-
145	22	ceph_frobnicate	frobnicate	-
146	22	ceph_osd_tree_frob	osd tree frob	-
147	22	ceph_auth_add_client.admin	auth add client.admin	-
148	0	ceph_osd_crush_add-bucket_h1_host	osd crush add-bucket h1 host	-
149	1	ceph_osd_erasure-code-profile_set_default_k=4_m=2	osd erasure-code-profile set default k=4 m=2	-
150	0	ceph_osd_pool_application_enable_rbd_rbd	osd pool application enable rbd rbd	-
151	1	ceph_osd_pool_application_enable_rbd_cephfs	osd pool application enable rbd cephfs	-
# health made non-OK: noout, pool 'big' size 5 > 4 osds, osd.0 out, pool
# 'one' size 1
152	0	ceph_osd_set_noout__3	osd set noout	-
153	0	ceph_osd_pool_create_big_8_8_replicated_replicated_rule_0_5	osd pool create big 8 8 replicated replicated_rule 0 5	-
154	0	ceph_osd_pool_get_big_size	osd pool get big size	-
155	0	ceph_osd_pool_create_one_8	osd pool create one 8	-
156	1	ceph_osd_pool_set_one_size_1	osd pool set one size 1	-
157	1	ceph_osd_pool_set_one_size_1_--yes-i-really-mean-it	osd pool set one size 1 --yes-i-really-mean-it	-
158	0	ceph_osd_out_0__3	osd out 0	-
159	0	ceph_-s__warn	-s	-
160	0	ceph_-s__warn	-s -f json-pretty	status
161	0	ceph_status_-f_json__warn	status -f json	status
162	0	ceph_health__warn	health	-
163	0	ceph_health__warn	health -f json-pretty	health
164	0	ceph_health_detail__warn	health detail	-
165	0	ceph_health_detail__warn	health detail -f json-pretty	health
166	0	ceph_osd_tree__warn	osd tree	-
167	0	ceph_osd_tree__warn	osd tree -f json-pretty	osd_tree
168	0	ceph_osd_stat__warn	osd stat	-
169	0	ceph_osd_stat__warn	osd stat -f json-pretty	osd_stat
170	0	ceph_osd_dump__warn	osd dump	-
171	0	ceph_osd_dump__warn	osd dump -f json-pretty	osd_dump
172	0	ceph_pg_stat__warn	pg stat	-
173	0	ceph_pg_stat__warn	pg stat -f json-pretty	pg_stat
174	0	ceph_pg_dump_stuck_inactive__warn	pg dump_stuck inactive	-
175	0	ceph_pg_dump_stuck_inactive__warn	pg dump_stuck inactive -f json-pretty	pg_dump_stuck_inactive
# one ceph-osd daemon (memstore) started as a new id; osd.0-3 marked out
# so PGs map to it (here: interlude, before step 177)
176	0	ceph_osd_out_1_2_3__before_osd_daemon	osd out 1 2 3	-
177	0	ceph_-s__osd_up	-s	-
178	0	ceph_-s__osd_up	-s -f json-pretty	status
179	0	ceph_osd_tree__osd_up	osd tree	-
180	0	ceph_osd_tree__osd_up	osd tree -f json-pretty	osd_tree
181	0	ceph_pg_stat__osd_up	pg stat	-
182	0	ceph_pg_stat__osd_up	pg stat -f json-pretty	pg_stat
183	0	ceph_pg_dump_pgs_brief__osd_up	pg dump pgs_brief	-
184	0	ceph_pg_dump_pgs_brief__osd_up	pg dump pgs_brief -f json-pretty	pg_dump_pgs_brief
185	0	ceph_pg_map_1.0__osd_up	pg map 1.0	-
186	0	ceph_pg_map_1.0__osd_up	pg map 1.0 -f json-pretty	pg_map_1.0
187	0	ceph_pg_1.0_query__osd_up	pg 1.0 query	-
188	0	ceph_pg_1.0_query__osd_up	pg 1.0 query -f json-pretty	pg_1.0_query
189	0	ceph_health_detail__osd_up	health detail	-
190	0	ceph_health_detail__osd_up	health detail -f json-pretty	health
191	16	ceph_osd_rm_UP	osd rm 5	-
192	16	ceph_osd_purge_UP	osd purge 5 --yes-i-really-mean-it	-
193	0	ceph_osd_down_UP	osd down 5	-
194	0	ceph_osd_tree__just_after_down_of_live_osd	osd tree	-
# osd.5 back up after 6 s (it reports 'wrongly marked me down')
195	0	ceph_osd_tree__after_down_of_live_osd	osd tree	-
196	0	ceph_log_last_10__after_down_of_live_osd	log last 10	-
# ceph-osd daemon stopped (SIGTERM, by PID) here
197	0	ceph_osd_down_DOWN_DAEMON	osd down 5	-
198	0	ceph_osd_rm_DOWN_IN	osd rm 5	-
199	0	ceph_osd_out_then_rm	osd out 5	-
200	0	ceph_osd_rm_DOWN_OUT	osd rm 5	-
201	0	ceph_osd_tree__end	osd tree	-
202	0	ceph_osd_tree__end	osd tree -f json-pretty	osd_tree
203	0	ceph_log_last_20__end	log last 20	-
EOF
)

# Ceph's JSON keys: a name (of STEPS), a path in the document ("." the
# top-level object, "L.0" the first element of the list L, "0" the first
# element of a top-level list; "[]" a list of scalars, "scalar" a bare
# value: only the kind is checked), and the keys there, sorted.  A name's
# rows with the same path add up.  From outputs/FILE.json of the first
# step naming it; a later step of the same name had the same keys.
KEYS=$(cat <<'EOF'
status	.	election_epoch,fsid,fsmap,health,mgrmap,monmap,osdmap
status	.	pgmap,progress_events,quorum,quorum_age,quorum_names
status	.	servicemap
health	.	checks,mutes,status
mon_stat	.	epoch,leader,min_mon_release_name,num_mons,quorum
mon_stat	quorum.0	name,rank
mon_dump	.	created,disallowed_leaders: ,election_strategy,epoch
mon_dump	.	features,fsid,min_mon_release,min_mon_release_name
mon_dump	.	modified,mons,quorum,removed_ranks: ,stretch_mode
mon_dump	.	tiebreaker_mon
mon_dump	mons.0	addr,crush_location,name,priority,public_addr
mon_dump	mons.0	public_addrs,rank,weight
quorum_status	.	election_epoch,features,monmap,quorum,quorum_age
quorum_status	.	quorum_leader_name,quorum_names
osd_dump	.	backfillfull_ratio,blocklist,cluster_snapshot,created
osd_dump	.	crush_node_flags,crush_version,device_class_flags,epoch
osd_dump	.	erasure_code_profiles,flags,flags_num,flags_set,fsid
osd_dump	.	full_ratio,last_in_change,last_up_change,max_osd
osd_dump	.	min_compat_client,modified,nearfull_ratio
osd_dump	.	new_purged_snaps,new_removed_snaps,osd_xinfo,osds
osd_dump	.	pg_temp,pg_upmap,pg_upmap_items,pool_max,pools
osd_dump	.	primary_temp,range_blocklist,removed_snaps_queue
osd_dump	.	require_min_compat_client,require_osd_release
osd_dump	.	stretch_mode
osd_dump	osd_xinfo.0	dead_epoch,down_stamp,features,laggy_interval
osd_dump	osd_xinfo.0	laggy_probability,last_purged_snaps_scrub,old_weight,osd
osd_dump	osds.0	cluster_addr,cluster_addrs,down_at,heartbeat_back_addr
osd_dump	osds.0	heartbeat_back_addrs,heartbeat_front_addr
osd_dump	osds.0	heartbeat_front_addrs,in,last_clean_begin,last_clean_end
osd_dump	osds.0	lost_at,osd,primary_affinity,public_addr,public_addrs
osd_dump	osds.0	state,up,up_from,up_thru,uuid,weight
osd_dump	pools.0	application_metadata,auid,cache_min_evict_age
osd_dump	pools.0	cache_min_flush_age,cache_mode
osd_dump	pools.0	cache_target_dirty_high_ratio_micro
osd_dump	pools.0	cache_target_dirty_ratio_micro
osd_dump	pools.0	cache_target_full_ratio_micro,create_time,crush_rule
osd_dump	pools.0	erasure_code_profile,expected_num_objects,fast_read
osd_dump	pools.0	flags,flags_names,grade_table,hit_set_count
osd_dump	pools.0	hit_set_grade_decay_rate,hit_set_params,hit_set_period
osd_dump	pools.0	hit_set_search_last_n,last_change,last_force_op_resend
osd_dump	pools.0	last_force_op_resend_preluminous
osd_dump	pools.0	last_force_op_resend_prenautilus,last_pg_merge_meta
osd_dump	pools.0	min_read_recency_for_promote,min_size
osd_dump	pools.0	min_write_recency_for_promote,object_hash,options
osd_dump	pools.0	peering_crush_bucket_barrier,peering_crush_bucket_count
osd_dump	pools.0	peering_crush_bucket_mandatory_member
osd_dump	pools.0	peering_crush_bucket_target,pg_autoscale_mode,pg_num
osd_dump	pools.0	pg_num_pending,pg_num_target,pg_placement_num
osd_dump	pools.0	pg_placement_num_target,pool,pool_name,pool_snaps
osd_dump	pools.0	quota_max_bytes,quota_max_objects,read_tier
osd_dump	pools.0	removed_snaps,size,snap_epoch,snap_mode,snap_seq
osd_dump	pools.0	stripe_width,target_max_bytes,target_max_objects,tier_of
osd_dump	pools.0	tiers,type,use_gmt_hitset,write_tier
osd_tree__new	.	nodes,stray
osd_tree__new	nodes.0	children,id,name,type,type_id
osd_create	.	osdid
osd_tree	.	nodes,stray
osd_tree	nodes.0	children,id,name,type,type_id
osd_tree	stray.0	crush_weight,depth,exists,id,name,primary_affinity
osd_tree	stray.0	reweight,status,type,type_id
osd_stat	.	epoch,num_in_osds,num_osds,num_remapped_pgs,num_up_osds
osd_stat	.	osd_in_since,osd_up_since
list	[]	
osd_pool_ls_detail	0	application_metadata,auid,cache_min_evict_age
osd_pool_ls_detail	0	cache_min_flush_age,cache_mode
osd_pool_ls_detail	0	cache_target_dirty_high_ratio_micro
osd_pool_ls_detail	0	cache_target_dirty_ratio_micro
osd_pool_ls_detail	0	cache_target_full_ratio_micro,create_time,crush_rule
osd_pool_ls_detail	0	erasure_code_profile,expected_num_objects,fast_read
osd_pool_ls_detail	0	flags,flags_names,grade_table,hit_set_count
osd_pool_ls_detail	0	hit_set_grade_decay_rate,hit_set_params,hit_set_period
osd_pool_ls_detail	0	hit_set_search_last_n,last_change,last_force_op_resend
osd_pool_ls_detail	0	last_force_op_resend_preluminous
osd_pool_ls_detail	0	last_force_op_resend_prenautilus,last_pg_merge_meta
osd_pool_ls_detail	0	min_read_recency_for_promote,min_size
osd_pool_ls_detail	0	min_write_recency_for_promote,object_hash,options
osd_pool_ls_detail	0	peering_crush_bucket_barrier,peering_crush_bucket_count
osd_pool_ls_detail	0	peering_crush_bucket_mandatory_member
osd_pool_ls_detail	0	peering_crush_bucket_target,pg_autoscale_mode,pg_num
osd_pool_ls_detail	0	pg_num_pending,pg_num_target,pg_placement_num
osd_pool_ls_detail	0	pg_placement_num_target,pool_id,pool_name,pool_snaps
osd_pool_ls_detail	0	quota_max_bytes,quota_max_objects,read_tier
osd_pool_ls_detail	0	removed_snaps,size,snap_epoch,snap_mode,snap_seq
osd_pool_ls_detail	0	stripe_width,target_max_bytes,target_max_objects,tier_of
osd_pool_ls_detail	0	tiers,type,use_gmt_hitset,write_tier
osd_pool_get_rbd_size	.	pool,pool_id,size
osd_pool_get_rbd_pg_num	.	pg_num,pool,pool_id
osd_pool_get_rbd_all	.	bulk,crush_rule,fast_read,hashpspool,min_size
osd_pool_get_rbd_all	.	nodeep-scrub,nodelete,nopgchange,noscrub,nosizechange
osd_pool_get_rbd_all	.	pg_autoscale_mode,pg_num,pgp_num,pool,pool_id,size
osd_pool_get_rbd_all	.	use_gmt_hitset,write_fadvise_dontneed
osd_pool_stats	0	client_io_rate,pool_id,pool_name,recovery,recovery_rate
df	.	pools,stats,stats_by_class
df	pools.0	id,name,stats
pg_stat	.	pg_ready,pg_summary
pg_dump_summary	.	pg_map,pg_ready
pg_dump_pgs	.	pg_ready,pg_stats
pg_dump_pgs	pg_stats.0	acting,acting_primary,avail_no_missing,blocked_by
pg_dump_pgs	pg_stats.0	created,dirty_stats_invalid,hitset_bytes_stats_invalid
pg_dump_pgs	pg_stats.0	hitset_stats_invalid,last_active,last_became_active
pg_dump_pgs	pg_stats.0	last_became_peered,last_change,last_clean
pg_dump_pgs	pg_stats.0	last_clean_scrub_stamp,last_deep_scrub
pg_dump_pgs	pg_stats.0	last_deep_scrub_stamp,last_epoch_clean,last_fresh
pg_dump_pgs	pg_stats.0	last_fullsized,last_peered,last_scrub,last_scrub_stamp
pg_dump_pgs	pg_stats.0	last_undegraded,last_unstale,log_size,log_start
pg_dump_pgs	pg_stats.0	manifest_stats_invalid,mapping_epoch
pg_dump_pgs	pg_stats.0	object_location_counts,omap_stats_invalid
pg_dump_pgs	pg_stats.0	ondisk_log_size,ondisk_log_start,parent
pg_dump_pgs	pg_stats.0	parent_split_bits,pgid,pin_stats_invalid,purged_snaps
pg_dump_pgs	pg_stats.0	reported_epoch,reported_seq,snaptrimq_len,stat_sum,state
pg_dump_pgs	pg_stats.0	stats_invalid,up,up_primary,version
pg_dump_pgs_brief	.	pg_ready,pg_stats
pg_dump_pgs_brief	pg_stats.0	acting,acting_primary,pgid,state,up,up_primary
pg_map_1.0	.	acting,epoch,pgid,raw_pgid,up
pg_dump_stuck_inactive	.	pg_ready,stuck_pg_stats
pg_dump_stuck_inactive	stuck_pg_stats.0	acting,acting_primary,avail_no_missing,blocked_by
pg_dump_stuck_inactive	stuck_pg_stats.0	created,dirty_stats_invalid,hitset_bytes_stats_invalid
pg_dump_stuck_inactive	stuck_pg_stats.0	hitset_stats_invalid,last_active,last_became_active
pg_dump_stuck_inactive	stuck_pg_stats.0	last_became_peered,last_change,last_clean
pg_dump_stuck_inactive	stuck_pg_stats.0	last_clean_scrub_stamp,last_deep_scrub
pg_dump_stuck_inactive	stuck_pg_stats.0	last_deep_scrub_stamp,last_epoch_clean,last_fresh
pg_dump_stuck_inactive	stuck_pg_stats.0	last_fullsized,last_peered,last_scrub,last_scrub_stamp
pg_dump_stuck_inactive	stuck_pg_stats.0	last_undegraded,last_unstale,log_size,log_start
pg_dump_stuck_inactive	stuck_pg_stats.0	manifest_stats_invalid,mapping_epoch
pg_dump_stuck_inactive	stuck_pg_stats.0	object_location_counts,omap_stats_invalid
pg_dump_stuck_inactive	stuck_pg_stats.0	ondisk_log_size,ondisk_log_start,parent
pg_dump_stuck_inactive	stuck_pg_stats.0	parent_split_bits,pgid,pin_stats_invalid,purged_snaps
pg_dump_stuck_inactive	stuck_pg_stats.0	reported_epoch,reported_seq,snaptrimq_len,stat_sum,state
pg_dump_stuck_inactive	stuck_pg_stats.0	stats_invalid,up,up_primary,version
pg_dump_stuck_stale	.	pg_ready,stuck_pg_stats
log_last_5	0	addrs,channel,message,name,priority,rank,seq,stamp
scalar	scalar	
config_dump	0	can_update_at_runtime,level,mask,name,section,value
tell_mon.a_perf_dump	.	AsyncMessenger::Worker-0,AsyncMessenger::Worker-1
tell_mon.a_perf_dump	.	AsyncMessenger::Worker-2,cct,cluster
tell_mon.a_perf_dump	.	finisher-mon_finisher,finisher-monstore,mempool,mon
tell_mon.a_perf_dump	.	paxos,prioritycache,prioritycache:full,prioritycache:inc
tell_mon.a_perf_dump	.	prioritycache:kv,rocksdb,throttle-mon_client_bytes
tell_mon.a_perf_dump	.	throttle-mon_daemon_bytes
tell_mon.a_perf_dump	.	throttle-msgr_dispatch_throttler-mon
tell_mon.a_perf_dump	.	throttle-msgr_dispatch_throttler-mon-mgrc
tell_mon.a_version	.	release,release_type,version
mgr_stat	.	active_name,available,epoch,num_standby
versions	.	mds,mgr,mon,osd,overall
pg_1.0_query	.	acting,acting_recovery_backfill,agent_state,epoch,info
pg_1.0_query	.	peer_info,recovery_state,snap_trimq,snap_trimq_len,state
pg_1.0_query	.	up
pg_1.0_query	recovery_state.0	enter_time,might_have_unfound,name,recovery_progress
EOF
)

# The differences left, each with its reason: the steps (comma-separated),
# what differs, and why.  WHAT is one of
#   rc N            mapmon exits N where Ceph exits as STEPS says
#   keys PATH K,..  these keys of Ceph's at PATH (as in KEYS) are not in
#                   mapmon's JSON
#   empty PATH      Ceph's list at PATH has a first element, mapmon's not
#   skip            the step is not run (TAP SKIP)
# A step's rows add up; the differences seen must be exactly these.
# ("disallowed_leaders: " and "removed_ranks: " are Ceph's key names as
# MonMap::dump writes them, colon and blank included.)
EXCEPTIONS=$(cat <<'EOF'
2,3,23,160,161,178	keys . fsmap	no MDS (no file system)
2,3,23,160,161,178	keys . mgrmap,progress_events,servicemap	no manager
9	keys . min_mon_release_name	Ceph release field: mapmon has no releases
11	keys . min_mon_release,min_mon_release_name	Ceph release field: mapmon has no releases
11	keys . disallowed_leaders: ,election_strategy,removed_ranks: 	Raft elects the leader: no election strategy, priorities, weights
11,13	keys . features	no feature bits: one protocol
11	keys . stretch_mode,tiebreaker_mon	no stretch mode
11	keys mons.0 crush_location,priority,weight	Raft elects the leader: no election strategy, priorities, weights
11	keys mons.0 public_addr	not implemented
11	keys mons.0 public_addrs	one address per daemon: no addrvec, cluster or heartbeat network
15,44,171	keys . min_compat_client,require_min_compat_client	Ceph release field: mapmon has no releases
15,44,171	keys . require_osd_release	Ceph release field: mapmon has no releases
15,44,171	keys . blocklist,range_blocklist	no client blocklist
15,44,171	keys . erasure_code_profiles	no erasure coding: replicated pools only
15,44,171	keys . crush_node_flags,device_class_flags	no per-bucket or per-class OSD flags
15,44,171	keys . pg_temp,pg_upmap,pg_upmap_items,primary_temp	no pg_temp, primary_temp or upmap (no backfill, no balancer)
15,44,171	keys . cluster_snapshot,new_purged_snaps,new_removed_snaps	no snapshots
15,44,171	keys . removed_snaps_queue	no snapshots
15,44,171	keys . stretch_mode	no stretch mode
15,44,171	keys . flags_num,last_in_change,last_up_change	not implemented
15,44,171	keys . osd_xinfo	not implemented
15,44,171	keys osds.0 uuid	no OSD uuid: osd create, Ceph's osd new has one
15,44,171	keys osds.0 last_clean_begin,last_clean_end,lost_at,up_thru	no peering intervals (up_thru, lost_at, clean intervals)
15,44,171	keys osds.0 cluster_addr,cluster_addrs,heartbeat_back_addr	one address per daemon: no addrvec, cluster or heartbeat network
15,44,171	keys osds.0 heartbeat_back_addrs,heartbeat_front_addr	one address per daemon: no addrvec, cluster or heartbeat network
15,44,171	keys osds.0 heartbeat_front_addrs,public_addrs	one address per daemon: no addrvec, cluster or heartbeat network
15,44,171	keys pools.0 last_pg_merge_meta,pg_autoscale_mode,pg_num_pending	no PG autoscaling or merging
15,44,171	keys pools.0 pg_num_target,pg_placement_num_target	no PG autoscaling or merging
15,44,171	keys pools.0 cache_min_evict_age,cache_min_flush_age,cache_mode	no cache tiering
15,44,171	keys pools.0 cache_target_dirty_high_ratio_micro	no cache tiering
15,44,171	keys pools.0 cache_target_dirty_ratio_micro,cache_target_full_ratio_micro	no cache tiering
15,44,171	keys pools.0 grade_table,hit_set_count,hit_set_grade_decay_rate	no cache tiering
15,44,171	keys pools.0 hit_set_params,hit_set_period,hit_set_search_last_n	no cache tiering
15,44,171	keys pools.0 min_read_recency_for_promote,min_write_recency_for_promote	no cache tiering
15,44,171	keys pools.0 read_tier,target_max_bytes,target_max_objects,tier_of,tiers	no cache tiering
15,44,171	keys pools.0 use_gmt_hitset,write_tier	no cache tiering
15,44,171	keys pools.0 last_force_op_resend,last_force_op_resend_preluminous	no client I/O path (op resend epochs)
15,44,171	keys pools.0 last_force_op_resend_prenautilus	no client I/O path (op resend epochs)
15,44,171	keys pools.0 erasure_code_profile	no erasure coding: replicated pools only
15,44,171	keys pools.0 fast_read,flags,flags_names	no pool flags
15,44,171	keys pools.0 quota_max_bytes,quota_max_objects	no pool quotas
15,44,171	keys pools.0 pool_snaps,removed_snaps,snap_epoch,snap_mode,snap_seq	no snapshots
15,44,171	keys pools.0 peering_crush_bucket_barrier,peering_crush_bucket_count	no stretch mode
15,44,171	keys pools.0 peering_crush_bucket_mandatory_member	no stretch mode
15,44,171	keys pools.0 peering_crush_bucket_target	no stretch mode
15,44,171	keys pools.0 auid,create_time,expected_num_objects	not implemented
15,44,171	keys pools.0 last_change,object_hash,options,stripe_width	not implemented
46,169	keys . num_remapped_pgs,osd_in_since,osd_up_since	not implemented
63,65	rc 95	no erasure coding: replicated pools only
71	keys 0 last_pg_merge_meta,pg_autoscale_mode,pg_num_pending	no PG autoscaling or merging
71	keys 0 pg_num_target,pg_placement_num_target	no PG autoscaling or merging
71	keys 0 cache_min_evict_age,cache_min_flush_age,cache_mode	no cache tiering
71	keys 0 cache_target_dirty_high_ratio_micro	no cache tiering
71	keys 0 cache_target_dirty_ratio_micro,cache_target_full_ratio_micro	no cache tiering
71	keys 0 grade_table,hit_set_count,hit_set_grade_decay_rate	no cache tiering
71	keys 0 hit_set_params,hit_set_period,hit_set_search_last_n	no cache tiering
71	keys 0 min_read_recency_for_promote,min_write_recency_for_promote	no cache tiering
71	keys 0 read_tier,target_max_bytes,target_max_objects,tier_of,tiers	no cache tiering
71	keys 0 use_gmt_hitset,write_tier	no cache tiering
71	keys 0 last_force_op_resend,last_force_op_resend_preluminous	no client I/O path (op resend epochs)
71	keys 0 last_force_op_resend_prenautilus	no client I/O path (op resend epochs)
71	keys 0 erasure_code_profile	no erasure coding: replicated pools only
71	keys 0 fast_read,flags,flags_names	no pool flags
71	keys 0 quota_max_bytes,quota_max_objects	no pool quotas
71	keys 0 pool_snaps,removed_snaps,snap_epoch,snap_mode,snap_seq	no snapshots
71	keys 0 peering_crush_bucket_barrier,peering_crush_bucket_count	no stretch mode
71	keys 0 peering_crush_bucket_mandatory_member	no stretch mode
71	keys 0 peering_crush_bucket_target	no stretch mode
71	keys 0 auid,create_time,expected_num_objects	not implemented
71	keys 0 last_change,object_hash,options,stripe_width	not implemented
93	keys . bulk,pg_autoscale_mode	no PG autoscaling or merging
93	keys . use_gmt_hitset	no cache tiering
93	keys . fast_read,hashpspool,nodeep-scrub,nodelete,nopgchange,noscrub	no pool flags
93	keys . nosizechange,write_fadvise_dontneed	no pool flags
96,97	rc 22	not implemented: osd pool stats
105,109	keys pg_stats.0 purged_snaps	no snapshots
105,109	keys pg_stats.0 avail_no_missing,blocked_by,dirty_stats_invalid	not implemented
105,109	keys pg_stats.0 hitset_bytes_stats_invalid,hitset_stats_invalid	not implemented
105,109	keys pg_stats.0 last_became_peered,last_clean_scrub_stamp,log_start	not implemented
105,109	keys pg_stats.0 manifest_stats_invalid,object_location_counts	not implemented
105,109	keys pg_stats.0 omap_stats_invalid,ondisk_log_start,parent,pin_stats_invalid	not implemented
105,109	keys pg_stats.0 stats_invalid	not implemented
115	rc 22	not implemented: pg PGID query (mapmon: pg query PGID)
117,175	keys stuck_pg_stats.0 purged_snaps	no snapshots
117,175	keys stuck_pg_stats.0 avail_no_missing,blocked_by,dirty_stats_invalid	not implemented
117,175	keys stuck_pg_stats.0 hitset_bytes_stats_invalid,hitset_stats_invalid	not implemented
117,175	keys stuck_pg_stats.0 last_became_peered,last_clean_scrub_stamp,log_start	not implemented
117,175	keys stuck_pg_stats.0 manifest_stats_invalid,object_location_counts	not implemented
117,175	keys stuck_pg_stats.0 omap_stats_invalid,ondisk_log_start,parent,pin_stats_invalid	not implemented
117,175	keys stuck_pg_stats.0 stats_invalid	not implemented
131	empty 0	no manager: Ceph's dump holds the one option its manager set
132,133,136,137	rc 22	not implemented: tell (mapmon: perf dump, version)
134,135	rc 22	no admin socket: mapmon's counters are perf dump and /metrics
138,139	rc 22	no manager
140,141	rc 22	not implemented: versions (mapmon: version)
149	rc 22	no erasure coding: replicated pools only
153	rc 22	not implemented: osd pool create's words past RULE
154	rc 2	pool big is not made at step 153
187,188	skip	needs a running OSD daemon: the PG's primary answers pg query
192	rc 22	not implemented: osd purge
EOF
)

declare -A KS KPATHS XDIFF XREASON SKIP
while IFS=$'\t' read -r name path keys; do
	case $name in "" | "#"*) continue ;; esac
	case " ${KPATHS[$name]:-} " in
	*" $path "*) KS[$name|$path]+=",$keys" ;;
	*) KPATHS[$name]+=" $path"; KS[$name|$path]=$keys ;;
	esac
done <<<"$KEYS"

# xadd STEP TOKEN REASON: a difference the table expects of STEP.
xadd() {
	XDIFF[$1]+="$2"$'\n'
	case $'\n'"${XREASON[$1]:-}" in
	*$'\n'"$3"$'\n'*) ;;
	*) XREASON[$1]+="$3"$'\n' ;;
	esac
}
while IFS=$'\t' read -r steps what reason; do
	case $steps in "" | "#"*) continue ;; esac
	IFS=, read -ra ss <<<"$steps"
	for s in "${ss[@]}"; do
		case $what in
		skip) SKIP[$s]=$reason ;;
		"rc "*) xadd "$s" "rc ${what#rc }" "$reason" ;;
		"empty "*) xadd "$s" "$what" "$reason" ;;
		"keys "*)
			p=${what#keys }
			IFS=, read -ra kk <<<"${p#* }"
			for k in "${kk[@]}"; do
				xadd "$s" "key ${p%% *}:$k" "$reason"
			done
			;;
		*) echo "Bail out! EXCEPTIONS: '$what' is none of rc|keys|empty|skip"
			exit 99 ;;
		esac
	done
done <<<"$EXCEPTIONS"

# keys_diff NAME: Ceph's keys of NAME that mapmon's JSON in $T/out lacks,
# as "key PATH:K" and "empty PATH" lines ("not JSON" when it is none).
keys_diff() {
	local name=$1 path keys have k top doc
	doc=$("$JG" . <"$T/out" 2>/dev/null) || { echo "not JSON"; return; }
	for path in ${KPATHS[$name]}; do
		keys=${KS[$name|$path]}
		case $path in
		"[]")
			[ "${doc:0:1}" = "[" ] || echo "kind $path"
			continue ;;
		scalar)
			case ${doc:0:1} in "{" | "[") echo "kind $path" ;; esac
			continue ;;
		.) have=$("$JG" @keys <"$T/out" 2>/dev/null) ;;
		*)
			top=${path%.0}
			# a missing list is said once, as a missing key
			if [ "$path" != 0 ] && ! "$JG" "$top" <"$T/out" \
			    >/dev/null 2>&1; then
				continue
			fi
			if ! have=$("$JG" "$path.@keys" <"$T/out" 2>/dev/null)
			then
				echo "empty $path"
				continue
			fi
			;;
		esac
		IFS=, read -ra kk <<<"$keys"
		for k in "${kk[@]}"; do
			case ",$have," in *",$k,"*) ;; *) echo "key $path:$k" ;; esac
		done
	done
}

# What happened between two steps of Ceph's session, done here before
# step $1 (SEQUENCE.md's notes).
interlude() {
	case $1 in
	116)	# "pg dump_stuck inactive": the PGs of data and meta stuck
		while [ $((SECONDS - t_pools)) -lt 2 ]; do sleep 0.2; done
		;;
	177)	# "one ceph-osd daemon (memstore) started as a new id": an
		# OSD's boot, as mapmon's osd boot makes it (osd.5, in h1)
		run osd create
		run osd boot 5 127.0.0.1:6805 root=default host=h1
		check "before step 177: osd.5 created and booted in host h1" \
		    test "$rc" -eq 0
		;;
	195)	# "osd.5 back up after 6 s": the OSD boots again
		run osd boot 5
		check "before step 195: osd.5 boots again" test "$rc" -eq 0
		;;
	esac
}

nsteps=0 nskip=0 nrc=0 njson=0 nkeys=0
declare -A RSTEPS SEEN
replay() {
	local step want file words kname d got x r
	while IFS=$'\t' read -r step want file words kname; do
		case $step in "" | "#"*) continue ;; esac
		nsteps=$((nsteps + 1))
		SEEN[$step]=1
		d="step $step: ceph $words: Ceph's exit status ($want)"
		[ "$kname" = - ] || d+=" and JSON keys"
		d+=" (Ceph 16.2.15, outputs/$file)"
		if [ -n "${SKIP[$step]:-}" ]; then
			nskip=$((nskip + 1))
			RSTEPS["skipped: ${SKIP[$step]}"]+=" $step"
			ok "$d # SKIP ${SKIP[$step]}"
			continue
		fi
		interlude "$step"
		# shellcheck disable=SC2086
		run $words
		got=
		if [ "$rc" -ne "$want" ]; then
			got="rc $rc"
		else
			nrc=$((nrc + 1))
			if [ "$kname" != - ]; then
				njson=$((njson + 1))
				got=$(keys_diff "$kname")
				[ -n "$got" ] || nkeys=$((nkeys + 1))
			fi
		fi
		[ "$kname" = - ] || [ "$rc" -eq "$want" ] || njson=$((njson + 1))
		got=$(printf '%s\n' "$got" | sed '/^$/d' | sort -u)
		x=$(printf '%s' "${XDIFF[$step]:-}" | sed '/^$/d' | sort -u)
		r=$(printf '%s' "${XREASON[$step]:-}" | sed '/^$/d' |
		    paste -sd ';' | sed 's/;/; /g')
		if [ "$got" = "$x" ] && [ -z "$x" ]; then
			ok "$d"
		elif [ "$got" = "$x" ]; then
			while IFS= read -r line; do
				[ -z "$line" ] || RSTEPS[$line]+=" $step"
			done <<<"${XREASON[$step]}"
			ok "$d; differs as listed: $r"
		elif [ -z "$got" ]; then
			notok "$d; exception no longer needed: $r" \
			    "$(printf 'listed: %s\n' "$x")"
		else
			notok "$d" "$(
			    comm -23 <(echo "$got") <(echo "$x") |
				sed 's/^/not listed: /'
			    comm -13 <(echo "$got") <(echo "$x") | sed '/^$/d' |
				sed 's/^/listed, not seen: /'
			    check_diag)"
		fi
	done <<<"$STEPS"
}

# What the reference's up.sh sets that mapmon has too: pool deletion
# allowed, mon_max_pg_per_osd raised, mon_data_avail_warn 10 (the disk of
# the machine may be fuller than 70 %), osd_pool_default_size 3.  And
# time: Ceph's session took minutes (a write takes a second there), so by
# step 116 its PGs had been inactive past the stuck threshold; this one
# takes seconds, so the threshold is 1 s (and step 116 waits for it).
suite_start lmdb "mon_allow_pool_delete = true
max_pg_per_osd = 1000000
data_avail_warn = 10
osd_pool_default_size = 3
pg_stuck_threshold = 1s"
# up.sh -s new: osd.0-3 made by `osd new' (never booted) and placed in
# CRUSH under host h1 with weight 1; then pools data 16 16, meta 8 8.
# (Ceph's `osd new' leaves an OSD in, mapmon's `osd create' out: both
# "exists,new" and down.)
setup_ok=0
for i in 0 1 2 3; do
	run osd create
	[ "$rc" -eq 0 ] || setup_ok=1
	run osd crush add "osd.$i" 1.0 root=default host=h1
	[ "$rc" -eq 0 ] || setup_ok=1
done
run osd pool create data 16 16
[ "$rc" -eq 0 ] || setup_ok=1
run osd pool create meta 8 8
[ "$rc" -eq 0 ] || setup_ok=1
t_pools=$SECONDS
check "the initial state: osd.0-3 under host h1, pools data and meta" \
    test "$setup_ok" -eq 0

replay

check "mapmond stops" stop_daemon
unknown=
for s in "${!XDIFF[@]}" "${!SKIP[@]}"; do
	[ -n "${SEEN[$s]:-}" ] || unknown+=" $s"
done
if [ -z "$unknown" ]; then ok "every step of EXCEPTIONS is one of STEPS"
else notok "every step of EXCEPTIONS is one of STEPS" "none:$unknown"; fi

echo "# $nsteps invocations of Ceph's session: $((nsteps - nskip)) run," \
    "$nskip skipped"
echo "# $nrc of them with Ceph's exit status; $nkeys of the $njson JSON" \
    "ones with all of Ceph's keys"
echo "# exceptions by reason (steps):"
for r in "${!RSTEPS[@]}"; do
	echo "#   $(wc -w <<<"${RSTEPS[$r]}")	$r:${RSTEPS[$r]}"
done | sort -t$'\t' -k2
done_testing
