// The adaptive member of zcav's results (measure/adaptive.h), shared by the
// writers and the reader: in a JSON result the member "adaptive", in a raw
// one the line "# adaptive: " followed by the same object on one line.
//
//   {"probe_bytes":..,"grid_probes":..,"probes":..,"engine":"io_uring",
//    "bytes_read":..,"range_start_bytes":..,"range_bytes":..,
//    "share_read":0.0016,"noise_rel":0.004,"reference_reads":12,
//    "largest_drift":0.93,"reread_bytes":..,"reread_capped":false,
//    "budget_hit":false,
//    "edges":[{"at_bytes":..,"uncertainty_bytes":..,"left_mb_per_s":..,
//              "right_mb_per_s":..}],
//    "inferred":[{"start_bytes":..,"end_bytes":..,"mb_per_s":..,"probes":..}]}
//
// The result's "blocks" are the probes: the only measured data. "inferred"
// holds the zones between the edges at the level of the probes inside them
// (read as the zone's level, never as a measurement); "share_read" is
// bytes_read / range_bytes (timed and untimed reads, the reference's
// included); "largest_drift" the drift furthest from 1 that a probe's read
// was divided by (the blocks' rates are the drift-corrected ones);
// "reread_bytes" the bytes of probes read again (in bytes_read), bounded at
// half the others, "reread_capped" whether they reached the bound.
#pragma once

#include <cstddef>
#include <string>

#include "zcav/measure/adaptive.h"

namespace zcav {

// The object as one line of JSON text (no newline). `probes`: how many
// probes the result's blocks hold.
std::string AdaptiveJsonText(const AdaptiveResult& result, std::size_t probes);

// Parses the object (text as AdaptiveJsonText writes it); `where` names the
// place in a message. The result's probes are left empty (they are the
// file's blocks). Throws Error(kBadInput) "WHERE: adaptive: ..." for text
// that is not such an object or has a negative or missing member.
AdaptiveResult ParseAdaptiveJson(const std::string& text, const std::string& where);

}  // namespace zcav
