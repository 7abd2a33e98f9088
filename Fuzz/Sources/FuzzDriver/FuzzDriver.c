// Header-only module: the declaration of libFuzzer's driver (see include/FuzzDriver.h).
#include "FuzzDriver.h"
