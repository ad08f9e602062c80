#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: bound text
/// and blobs are copied by SQLite before the bind call returns.
static inline sqlite3_destructor_type fleetfence_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
