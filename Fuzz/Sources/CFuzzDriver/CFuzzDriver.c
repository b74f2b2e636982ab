// The declaration in include/CFuzzDriver.h is all this module provides; libFuzzer's runtime defines the function.
#include "CFuzzDriver.h"
