// The key names of zcav's JSON result (the document json_writer.cc writes,
// with the members zcav profile adds after "blocks", profile_json.cc) in one
// place: the writers and json_reader.cc use these, never the text. A name
// is listed once, under the object it first appears in. Arrays of char, so a
// key is used exactly as its literal would be. What is not here: the events
// format's own members (its event names, "event", "exit_code": the events
// writer in json_writer.cc, events_reader.cc), the inside of "adaptive"
// (adaptive_format.cc) and of the zone analysis (zone_table.cc).
#pragma once

namespace zcav::json_keys {

// The top level of a result document (json_writer.cc, in the order written;
// "blocks" and "samples" are streamed). "error": how the run stopped, also
// a profile step's (profile_json.h).
inline constexpr char kFormat[] = "format";
inline constexpr char kSchemaVersion[] = "schema_version";
inline constexpr char kVersion[] = "version";
inline constexpr char kUnits[] = "units";
inline constexpr char kCommand[] = "command";
inline constexpr char kStarted[] = "started";
inline constexpr char kDevice[] = "device";
inline constexpr char kOptions[] = "options";
inline constexpr char kBlocks[] = "blocks";
inline constexpr char kPasses[] = "passes";
inline constexpr char kSummary[] = "summary";
inline constexpr char kHealth[] = "health";
inline constexpr char kSmart[] = "smart";
inline constexpr char kTemperatures[] = "temperatures";
inline constexpr char kTemperatureSource[] = "temperature_source";
inline constexpr char kThermalDrops[] = "thermal_drops";
inline constexpr char kAdaptive[] = "adaptive";
inline constexpr char kSamples[] = "samples";
inline constexpr char kErrors[] = "errors";
inline constexpr char kSlowRegions[] = "slow_regions";
inline constexpr char kWorstStall[] = "worst_stall";
inline constexpr char kSustained[] = "sustained";
inline constexpr char kStatus[] = "status";
inline constexpr char kPartial[] = "partial";
inline constexpr char kFinished[] = "finished";
inline constexpr char kError[] = "error";

// The members zcav profile adds after "blocks" (profile_json.h); "status" and
// "partial" above replace the sweep's.
inline constexpr char kTransport[] = "transport";
inline constexpr char kVerdict[] = "verdict";
inline constexpr char kSweep[] = "sweep";
inline constexpr char kAccess[] = "access";
inline constexpr char kRandomAccess[] = "random_access";
inline constexpr char kBurst[] = "burst";
inline constexpr char kProfile[] = "profile";

// "device" (also the probes' short one, profile_json.h), with its "identity"
// and "link_detail" objects; "transport" above is also a device member.
inline constexpr char kPath[] = "path";
inline constexpr char kKind[] = "kind";
inline constexpr char kSizeBytes[] = "size_bytes";
inline constexpr char kSectorBytes[] = "sector_bytes";
inline constexpr char kVendor[] = "vendor";
inline constexpr char kModel[] = "model";
inline constexpr char kRotational[] = "rotational";
inline constexpr char kStorageTransport[] = "storage_transport";
inline constexpr char kStorageRotational[] = "storage_rotational";
inline constexpr char kLink[] = "link";
inline constexpr char kLinkDetail[] = "link_detail";
inline constexpr char kDirectIo[] = "direct_io";
inline constexpr char kPageCacheFile[] = "page_cache_file";
inline constexpr char kNotes[] = "notes";
inline constexpr char kIdentity[] = "identity";
inline constexpr char kSerial[] = "serial";
inline constexpr char kWwn[] = "wwn";
inline constexpr char kFirmware[] = "firmware";
inline constexpr char kCapacityBytes[] = "capacity_bytes";
inline constexpr char kLogicalSectorBytes[] = "logical_sector_bytes";
inline constexpr char kPhysicalSectorBytes[] = "physical_sector_bytes";
inline constexpr char kRotationRpm[] = "rotation_rpm";
inline constexpr char kById[] = "by_id";
inline constexpr char kHost[] = "host";
inline constexpr char kKernel[] = "kernel";
inline constexpr char kZcavVersion[] = "zcav_version";
inline constexpr char kCurrent[] = "current";
inline constexpr char kMax[] = "max";
inline constexpr char kWidth[] = "width";
inline constexpr char kMaxWidth[] = "max_width";
inline constexpr char kDriver[] = "driver";
inline constexpr char kDowngraded[] = "downgraded";
inline constexpr char kReason[] = "reason";
inline constexpr char kLimitMbPerS[] = "limit_mb_per_s";
inline constexpr char kMaxLimitMbPerS[] = "max_limit_mb_per_s";
inline constexpr char kCardType[] = "card_type";
inline constexpr char kSpeedClass[] = "speed_class";
inline constexpr char kCardGrades[] = "card_grades";

// "options" (the sweep's plan) and its "timing".
inline constexpr char kStartBytes[] = "start_bytes";
inline constexpr char kEndBytes[] = "end_bytes";
inline constexpr char kBlockBytes[] = "block_bytes";
inline constexpr char kChunkBytes[] = "chunk_bytes";
inline constexpr char kSkip[] = "skip";
inline constexpr char kQuick[] = "quick";
inline constexpr char kWarmup[] = "warmup";
inline constexpr char kEngine[] = "engine";
inline constexpr char kQueueDepth[] = "queue_depth";
inline constexpr char kTiming[] = "timing";
inline constexpr char kBytesInFlight[] = "bytes_in_flight";
inline constexpr char kBlocksSpanned[] = "blocks_spanned";
inline constexpr char kDrainedPerBlock[] = "drained_per_block";
inline constexpr char kBlurBlocks[] = "blur_blocks";
inline constexpr char kMode[] = "mode";
inline constexpr char kBlockCount[] = "block_count";

// Each object of "blocks"; "passes" is also the plan's passes.
inline constexpr char kIndex[] = "index";
inline constexpr char kOffsetBytes[] = "offset_bytes";
inline constexpr char kLengthBytes[] = "length_bytes";
inline constexpr char kMbPerS[] = "mb_per_s";
inline constexpr char kMeanMbPerS[] = "mean_mb_per_s";
inline constexpr char kMinMbPerS[] = "min_mb_per_s";
inline constexpr char kMaxMbPerS[] = "max_mb_per_s";
inline constexpr char kStddevMbPerS[] = "stddev_mb_per_s";
inline constexpr char kSeconds[] = "seconds";
inline constexpr char kUnreadableBytes[] = "unreadable_bytes";
inline constexpr char kWorstChunkMs[] = "worst_chunk_ms";

// Each object of "passes", and "summary"; the latency classes of both.
inline constexpr char kPass[] = "pass";
inline constexpr char kBytes[] = "bytes";
inline constexpr char kComplete[] = "complete";
inline constexpr char kPageCacheShare[] = "page_cache_share";
inline constexpr char kLatencyClasses[] = "latency_classes";
inline constexpr char kBelowMs[] = "below_ms";
inline constexpr char kChunks[] = "chunks";
inline constexpr char kUnreadableChunks[] = "unreadable_chunks";
inline constexpr char kAvgMbPerS[] = "avg_mb_per_s";
inline constexpr char kCpuPercent[] = "cpu_percent";
inline constexpr char kSystemBusyPercent[] = "system_busy_percent";
inline constexpr char kWallSeconds[] = "wall_seconds";
inline constexpr char kBytesRead[] = "bytes_read";
inline constexpr char kStorageReadBytes[] = "storage_read_bytes";
inline constexpr char kPageCacheShareAtEnd[] = "page_cache_share_at_end";

// The items of "errors" and "slow_regions" (zone_table.cc writes the
// latter's), and an "error" object.
inline constexpr char kErrno[] = "errno";
inline constexpr char kBoundedByBudget[] = "bounded_by_budget";
inline constexpr char kMessage[] = "message";
inline constexpr char kMs[] = "ms";
inline constexpr char kExpectedMs[] = "expected_ms";

// "worst_stall" (offset_bytes, length_bytes, ms, pass, seconds above) and
// "sustained" (also mb_per_s, bytes).
inline constexpr char kWindowSeconds[] = "window_seconds";
inline constexpr char kFromBytes[] = "from_bytes";
inline constexpr char kAfterWriteCache[] = "after_write_cache";
inline constexpr char kTimedSeconds[] = "timed_seconds";

// "health", "smart" (its "before" and "after" snapshots, its "increases"),
// "temperatures" and "thermal_drops".
inline constexpr char kReasons[] = "reasons";
inline constexpr char kBefore[] = "before";
inline constexpr char kAfter[] = "after";
inline constexpr char kIncreases[] = "increases";
inline constexpr char kField[] = "field";
inline constexpr char kAvailable[] = "available";
inline constexpr char kNote[] = "note";
inline constexpr char kProtocol[] = "protocol";
inline constexpr char kPassed[] = "passed";
inline constexpr char kTemperatureC[] = "temperature_c";
inline constexpr char kPowerOnHours[] = "power_on_hours";
inline constexpr char kReallocatedSectors[] = "reallocated_sectors";
inline constexpr char kPendingSectors[] = "pending_sectors";
inline constexpr char kOfflineUncorrectable[] = "offline_uncorrectable";
inline constexpr char kCrcErrors[] = "crc_errors";
inline constexpr char kMediaErrors[] = "media_errors";
inline constexpr char kPercentageUsed[] = "percentage_used";
inline constexpr char kCelsius[] = "celsius";
inline constexpr char kBeforeMbPerS[] = "before_mb_per_s";
inline constexpr char kAfterMbPerS[] = "after_mb_per_s";
inline constexpr char kFromCelsius[] = "from_celsius";
inline constexpr char kToCelsius[] = "to_celsius";
inline constexpr char kTimeEffect[] = "time_effect";

// Inside the profile's members: "transport", "verdict" ("kind" and "reason"
// above), "sweep", "access", "random_access" and its "cells", "burst",
// "profile" and its "estimate".
inline constexpr char kCeilingMbPerS[] = "ceiling_mb_per_s";
inline constexpr char kTheoreticalMbPerS[] = "theoretical_mb_per_s";
inline constexpr char kSource[] = "source";
inline constexpr char kCappedShare[] = "capped_share";
inline constexpr char kUncappedEstimateMbPerS[] = "uncapped_estimate_mb_per_s";
inline constexpr char kBlocksPlanned[] = "blocks_planned";
inline constexpr char kReadBytes[] = "read_bytes";
inline constexpr char kCount[] = "count";
inline constexpr char kMeanMs[] = "mean_ms";
inline constexpr char kMedianMs[] = "median_ms";
inline constexpr char kP95Ms[] = "p95_ms";
inline constexpr char kMinMs[] = "min_ms";
inline constexpr char kMaxMs[] = "max_ms";
inline constexpr char kDistanceBytes[] = "distance_bytes";
inline constexpr char kSecondsPerCell[] = "seconds_per_cell";
inline constexpr char kSeed[] = "seed";
inline constexpr char kCells[] = "cells";
inline constexpr char kEngineDepth[] = "engine_depth";
inline constexpr char kOps[] = "ops";
inline constexpr char kIops[] = "iops";
inline constexpr char kP50Ms[] = "p50_ms";
inline constexpr char kP99Ms[] = "p99_ms";
inline constexpr char kRegionBytes[] = "region_bytes";
inline constexpr char kRepetitions[] = "repetitions";
inline constexpr char kSampling[] = "sampling";
inline constexpr char kWhy[] = "why";
inline constexpr char kAdaptiveAboveSeconds[] = "adaptive_above_seconds";
inline constexpr char kPassesWhy[] = "passes_why";
inline constexpr char kEstimate[] = "estimate";
inline constexpr char kFullSweepSeconds[] = "full_sweep_seconds";

// zcav verify's member "verify" (verify_format.h): what a write, read back
// and compare of every position found.
inline constexpr char kVerify[] = "verify";
inline constexpr char kClaimedBytes[] = "claimed_bytes";
inline constexpr char kUsableBytes[] = "usable_bytes";
inline constexpr char kRunId[] = "run_id";
inline constexpr char kWrittenBytes[] = "written_bytes";
inline constexpr char kWriteDoneBytes[] = "write_done_bytes";
inline constexpr char kReadDoneBytes[] = "read_done_bytes";
inline constexpr char kRanges[] = "ranges";
inline constexpr char kState[] = "state";
inline constexpr char kSourceBytes[] = "source_bytes";
inline constexpr char kLostAs[] = "lost_as";
inline constexpr char kWriteMbPerS[] = "write_mb_per_s";
inline constexpr char kReadMbPerS[] = "read_mb_per_s";
inline constexpr char kInterrupted[] = "interrupted";
inline constexpr char kDeviceGone[] = "device_gone";
inline constexpr char kFix[] = "fix";
inline constexpr char kPartitionCommand[] = "partition_command";
inline constexpr char kBadBlocksBytes[] = "badblocks_block_bytes";
// zcav verify --quick's member "quick" (and kQuick, kSeconds above).
inline constexpr char kGoodBytes[] = "good_bytes";
inline constexpr char kBadBytes[] = "bad_bytes";
inline constexpr char kPrecision[] = "precision";
inline constexpr char kWrapPeriodBytes[] = "wrap_period_bytes";
inline constexpr char kProbes[] = "probes";
inline constexpr char kProbeBytes[] = "probe_bytes";
inline constexpr char kRounds[] = "rounds";
inline constexpr char kFlushBytes[] = "flush_bytes";
inline constexpr char kKeptData[] = "kept_data";
inline constexpr char kSavedBytes[] = "saved_bytes";
inline constexpr char kRestored[] = "restored";
// zcav verify's "card_promise" (and kMbPerS).
inline constexpr char kCardPromise[] = "card_promise";
inline constexpr char kGrade[] = "grade";
inline constexpr char kSustainedMbPerS[] = "sustained_mb_per_s";
inline constexpr char kMet[] = "met";

}  // namespace zcav::json_keys
