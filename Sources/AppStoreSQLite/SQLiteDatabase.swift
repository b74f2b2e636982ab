public import AppStoreEngine
import Foundation
public import AppStoreHosting

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
        let database = try SQLiteStorage(url: directory.databaseURL)
        return OpenedStoreDatabase(storage: database, signer: directory.signer, clockState: try database.clockState(tenant: tenant))
    }
}
