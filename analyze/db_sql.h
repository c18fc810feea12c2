/*
 * db_sql.h - what the analysis database's three files share (db.c opens
 * and migrates, db_load.c loads, db_read.c reads back): the handle and the
 * SQL helpers. Internal to analyze/db*.c.
 */
#ifndef TB_ANALYZE_DB_SQL_H
#define TB_ANALYZE_DB_SQL_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include <cjson/cJSON.h>

struct db {
	sqlite3 *sql;
	char *path;
	int version;   /* PRAGMA user_version after opening */
};

/* Fills err with SQLite's own message for the last failure on db;
 * returns DB_ERR_WORK. */
int db_sqlerr(struct db *db, char *err, size_t errlen);

/* Runs sql (no parameters). Returns DB_OK or DB_ERR_WORK. */
int db_exec(struct db *db, const char *sql, char *err, size_t errlen);

/* Rolls back the open transaction, if any (errors ignored). */
void db_rollback(struct db *db);

/* Prepares sql into *st. Returns DB_OK or DB_ERR_WORK. */
int db_prepare(struct db *db, const char *sql, sqlite3_stmt **st, char *err, size_t errlen);

/* Binds s (NULL: SQL NULL) to parameter i. */
int db_bind_text(sqlite3_stmt *st, int i, const char *s);

/* Binds v to parameter i, NULL when v is negative (not measured). */
int db_bind_opt_int64(sqlite3_stmt *st, int i, int64_t v);

/* Column i as a new string (NULL for SQL NULL or out of memory). */
char *db_column_strdup(sqlite3_stmt *st, int i);

/* Column i as an integer, -1 for SQL NULL. */
int64_t db_column_opt_int64(sqlite3_stmt *st, int i);

/* The "shard" of a params object ("K/N"), NULL when it has none. */
const char *db_params_shard(const cJSON *params);

/* N of "K/N" (and K into *k unless NULL); 0 when s is not of that form. */
long db_shard_count(const char *s, long *k);

#endif
