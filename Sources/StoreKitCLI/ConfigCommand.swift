import ArgumentParser
import Foundation
import StoreKitConfiguration

/// `storekit config …`: validate and inspect Xcode StoreKit configuration (`.storekit`) files.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Validate and inspect StoreKit configuration (.storekit) files.",
        discussion: """
            A .storekit file is the JSON catalog Xcode's StoreKit Testing uses: products, subscription groups, \
            offers and test settings. These commands read every generation Xcode has written (1.0 to 6.3), \
            report every problem at once with its JSON path (or line and column for broken JSON) and how to \
            fix it, and show what the store will sell.

            Examples:
              storekit config check Examples/Demo.storekit
              storekit config show Examples/Demo.storekit
              storekit config show Examples/Demo.storekit --json > Normalized.storekit
            """,
        subcommands: [Check.self, Show.self]
    )

    /// `storekit config check FILE...`
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate .storekit files and summarize the valid ones.",
            discussion: """
                Each file is read completely and checked for everything that would make the store wrong: \
                JSON syntax (reported as file:line:column), product types (case-sensitive, e.g. "Consumable"), \
                duplicate product IDs across all lists, prices that are not decimals, ISO-8601 periods \
                (P<n>D, P<n>W, P<n>M, P<n>Y), subscriptions pointing at a missing group, promotional and \
                win-back offers without an offerID, unknown payment modes, storefront codes and time rates. \
                All problems of a file are listed, one per line, with the path and the fix:

                  Demo.storekit: products[0].type: "consumable" is not a product type.
                    Types are case-sensitive: write "Consumable".
                  Demo.storekit:12:7: Expected ',' or '}' after the value of "type",
                    found '"'. Add a comma between members, or close the object with '}'.

                (Each issue is one line in the output; they are wrapped here.)

                A valid file prints a summary: products by type with prices, subscription groups with their \
                levels and offers, and the settings that differ from Xcode's defaults. The command exits with \
                status 1 when any file has a problem, so it fits in CI.

                Examples:
                  storekit config check Examples/Demo.storekit
                  storekit config check --quiet App/*.storekit
                """
        )

        @Argument(
            help: ArgumentHelp("The .storekit files to check.", valueName: "file"),
            completion: .file(extensions: ["storekit"]))
        var files: [String]

        @Flag(name: .shortAndLong, help: "Print only problems, no summaries.")
        var quiet = false

        func run() async throws {
            var failed = 0
            for (position, path) in files.enumerated() {
                do {
                    let configuration = try readConfiguration(path)
                    if !quiet {
                        if position > 0 { print("") }
                        print("\(path): OK")
                        print(configuration.summary().split(separator: "\n", omittingEmptySubsequences: false)
                            .map { "  " + $0 }.joined(separator: "\n"))
                    }
                } catch {
                    failed += 1
                    printError(error.description)
                }
            }
            if failed > 0 {
                printError("\(failed) of \(files.count) file\(files.count == 1 ? "" : "s") failed validation.")
                throw ExitCode(1)
            }
        }
    }

    /// `storekit config show FILE [--json]`
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print a .storekit file as the store reads it.",
            discussion: """
                Without options, prints the normalized model as text: every product with its localizations, \
                every offer (introductory, promotional, offer codes, win-back) with what the customer pays, \
                billing plans, every setting with its effective value (defaults included), policies, and any \
                keys kept without being understood.

                With --json, prints the file re-serialized the way Xcode writes it (2-space indent, \
                "key" : value, keys sorted case-insensitively). A file Xcode wrote comes back byte for byte, so \
                the output also works as a formatter for hand-edited files. Keys this tool does not know are \
                kept.

                Examples:
                  storekit config show Examples/Demo.storekit
                  storekit config show Edited.storekit --json > Formatted.storekit
                """
        )

        @Argument(
            help: ArgumentHelp("The .storekit file to show.", valueName: "file"),
            completion: .file(extensions: ["storekit"]))
        var file: String

        @Flag(help: "Print the file re-serialized in Xcode's JSON style instead of text.")
        var json = false

        func run() async throws {
            let configuration: StoreKitConfigurationFile
            do {
                configuration = try readConfiguration(file)
            } catch {
                printError(error.description)
                throw ExitCode(1)
            }
            if json {
                FileHandle.standardOutput.write(configuration.encodedData())
            } else {
                print(configuration.detailedDescription())
            }
        }
    }
}

/// Reads and validates a file, naming it in messages by the path as typed.
private func readConfiguration(_ path: String) throws(ConfigurationError) -> StoreKitConfigurationFile {
    let data: Data
    do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw ConfigurationError(
            sourceName: path,
            issues: [
                ConfigurationIssue(
                    code: .unreadableFile, location: .file, message: "The file cannot be read.",
                    fix: "Check the path and the file's permissions.")
            ])
    }
    return try StoreKitConfigurationFile(data: data, sourceName: path)
}

/// Writes a line to standard error.
private func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
