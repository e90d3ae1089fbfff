#pragma once
#include "workload/workload.h"

namespace mms {
WorkloadKind threadTouchKind();
}
