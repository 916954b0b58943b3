/* A compiler library that crashes the moment it is loaded: its ELF
 * constructor aborts, before the host could call anything. Running an
 * already compiled model must never dlopen it (the runtime opens dispatch
 * libraries only), so a broken compiler in a plugin directory cannot take
 * down an app that only runs .tsr files. */
#include <stdlib.h>

__attribute__((constructor)) static void crash_on_load(void) { abort(); }

/* Named like a real entry point, so the file looks like a plugin. */
__attribute__((visibility("default"))) int tsr_compiler_plugin_negotiate(void) { return 0; }
