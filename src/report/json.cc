// STUB
#include "report/report.h"
