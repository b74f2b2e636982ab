import AppStoreEngine
import AppStoreServer
import ArgumentParser
import Foundation
import Hummingbird
import Logging

/// `storekit serve`: runs the store as an HTTP server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the App Store as an HTTP server on this machine.",
        discussion: """
        The server keeps its state in the data directory (a SQLite file), shares it with the other \
        `storekit` commands, listens on 127.0.0.1 unless told otherwise and stops cleanly on Ctrl-C or SIGTERM.

        Endpoints: GET /health (status, version, the store clock's now), GET /v1/products (the catalog).

        Example:
          storekit serve --config Examples/Demo.storekit
          storekit serve --config Examples/Demo.storekit --port 0 --data-dir /tmp/store
        """
    )

    @Option(help: ArgumentHelp("The .storekit file that lists the products.", valueName: "file"))
    var config: String

    @OptionGroup var location: StoreLocationOptions

    @Option(help: "The address to listen on. Use 0.0.0.0 only if other machines must reach the store.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free port and prints it.")
    var port = 8080

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("Unknown log level \"\(logLevel)\". Use trace, debug, info, notice, warning, error or critical.")
        }
        let configuration = try loadConfiguration(config)
        let engine = try location.openStore(configuration: configuration)
        var logger = Logger(label: "storekit")
        logger.logLevel = level
        let server = StoreServer(engine: engine, host: host, port: port, logger: logger)
        let products = await engine.catalog.products.count
        let host = host
        let application = server.makeApplication { port in
            // Written unbuffered, so scripts that wait for this line see it at once.
            let line = "storekit \(StoreDefaults.version): serving \(products) products from \(config) at http://\(host):\(port)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        try await application.runService()
    }
}
