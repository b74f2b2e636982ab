public import AppStoreEngine
import Foundation
public import AppStoreHosting
import Synchronization

/// A data directory's own database: the SQLite file `store.sqlite` in it, shared by every process that opens the
/// directory, and its certificate authority in `ca/`.
///
/// Register it once (`StoreFactory.register(_:)`) and `StoreFactory` opens data directories with it. The
/// `storekit` command does, and so does `OpenStoreKit` when its `SQLite` package trait is on.
public struct SQLiteDatabase: StoreDatabase {
    /// `sqlite`: the scheme `StoreFactory` asks for a data directory given no database URL.
    public var schemes: Set<String> { [StoreFactory.dataDirectoryScheme] }

    /// The database of data directories.
    public init() {}

    /// Opens `directory`'s SQLite file, creating and migrating it when needed.
    public func open(_ url: String?, in directory: StoreDataDirectory, tenant: String) throws(StoreError) -> OpenedStoreDatabase {
        if let url {
            throw .storageFailure("\(url): a data directory's SQLite store is its own file, \(directory.databaseURL.path). Give no database URL to use it, or a postgres:// one.")
        }
        let database = try Self.sharedStorage(at: directory.databaseURL)
        return OpenedStoreDatabase(storage: database, signer: directory.signer, clockState: try database.clockState(tenant: tenant))
    }

    /// One storage per file in a process, for as long as a store uses it.
    private static let storages = Mutex<[String: WeakSQLiteStorage]>([:])

    private static func sharedStorage(at url: URL) throws(StoreError) -> SQLiteStorage {
        let key = url.standardizedFileURL.path
        if let open = storages.withLock({ $0[key]?.storage }) { return open }
        let opened = try SQLiteStorage(url: url)
        return storages.withLock { storages in
            if let open = storages[key]?.storage { return open }
            storages = storages.filter { $0.value.storage != nil }
            storages[key] = WeakSQLiteStorage(storage: opened)
            return opened
        }
    }
}

private struct WeakSQLiteStorage: Sendable {
    weak var storage: SQLiteStorage?
}
