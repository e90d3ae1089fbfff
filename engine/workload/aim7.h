#pragma once
#include "workload/workload.h"

namespace mms {
// Seed 004: AIM7 (re-aim) workfile.new_fserver-like job mix with fork/exec/exit and compaction.
WorkloadKind aim7FserverKind();
}
