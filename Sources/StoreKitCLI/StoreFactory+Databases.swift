import AppStoreEngine
import AppStoreHosting
import AppStorePostgres
import AppStoreSQLite

extension StoreFactory {
    /// Opens a store with the databases `storekit` links registered: SQLite for data directories, PostgreSQL for
    /// `--database` and `OPENSTOREKIT_DATABASE_URL`.
    static func openWithLinkedDatabases(_ specification: StoreSpecification) throws(StoreError) -> StoreEngine {
        _ = registeredLinkedDatabases
        return try open(specification)
    }

    /// Registers the databases once per process.
    private static let registeredLinkedDatabases: Void = {
        register(SQLiteDatabase())
        register(PostgresDatabase())
    }()
}
