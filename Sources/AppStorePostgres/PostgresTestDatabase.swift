package import AppStoreEngine
import Foundation
import PostgresNIO

/// The PostgreSQL database the package's tests use, named by `OPENSTOREKIT_TEST_POSTGRES_URL` (`.ci/postgres`
/// starts one and prints its URL). Each test works in a schema of its own, so tests run in parallel and never see
/// each other's tables.
package enum PostgresTestDatabase {
    /// The variable that names the test database.
    package static let environmentVariable = "OPENSTOREKIT_TEST_POSTGRES_URL"

    /// The test database's URL, or `nil` when the variable is unset or empty.
    package static var url: String? {
        guard let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty else { return nil }
        return url
    }

    /// Whether tests can run on PostgreSQL.
    package static var isConfigured: Bool { url != nil }

    /// The test database in a new schema (`test_…`), created when a storage first opens it, with a small pool.
    package static func freshConfiguration(maximumConnections: Int = 4) throws(StoreError) -> PostgresStorage.Configuration {
        guard let url else {
            throw .storageFailure("\(environmentVariable) is unset. Start a server with `export \(environmentVariable)=$(bash .ci/postgres)`.")
        }
        var configuration = try PostgresStorage.Configuration(url: url)
        configuration.schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        configuration.maximumConnections = maximumConnections
        return configuration
    }

    /// The URL of a configuration made by ``freshConfiguration(maximumConnections:)``: the test database's URL with the
    /// schema in its `options`.
    package static func url(of configuration: PostgresStorage.Configuration) -> String {
        let base = url ?? ""
        let schema = configuration.schema.map { "options=-c%20search_path%3D\($0)" } ?? ""
        return schema.isEmpty ? base : base + (base.contains("?") ? "&" : "?") + schema
    }

    /// Drops a test's schema and everything in it.
    package static func dropSchema(of configuration: PostgresStorage.Configuration) throws(StoreError) {
        try PostgresStorage.dropSchema(of: configuration)
    }
}
