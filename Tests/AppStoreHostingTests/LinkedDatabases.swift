import AppStoreHosting
import AppStorePostgres
import AppStoreSQLite

extension StoreFactory {
    /// Registers the databases these tests link, as the `storekit` command does at startup; a suite's initializer
    /// calls it before opening stores.
    static func registerTestDatabases() {
        register(SQLiteDatabase())
        register(PostgresDatabase())
    }
}
