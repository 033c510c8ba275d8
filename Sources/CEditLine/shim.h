// BSD libedit (editline and history), found through pkg-config `libedit` (Debian: libedit-dev).
#include <stdio.h>
#include <histedit.h>
