import AppStoreFormats
import ArgumentParser
import Foundation
import X509

/// `storekit jws …`: read and verify App Store JWS.
struct JWSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Decode and verify App Store JWS (transactions, renewal info, app transactions, notifications).",
        discussion: """
            Works with the store's tokens, Apple's (verify them with Apple Root CA - G3) and Xcode's (decode only:
            their one-certificate chain cannot be verified).

            Examples:
              storekit jws decode signedTransaction.jws
              storekit jws verify signedTransaction.jws --root roots.pem --bundle-id com.example.app
            """,
        subcommands: [Decode.self, Verify.self]
    )

    /// `storekit jws decode TOKEN|FILE`.
    struct Decode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Print a JWS's header, certificate chain and payload without verifying it.",
            discussion: """
                The argument is a compact JWS or a file holding one. --json prints one JSON object with
                "header", "chain" and "payload".

                Examples:
                  storekit jws decode eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlF...
                  storekit jws decode signedTransaction.jws --json
                """
        )

        @Argument(help: "A compact JWS, or a file containing one.")
        var token: String

        @Flag(help: "Print JSON.")
        var json = false

        func run() async throws {
            let jws: CompactJWS
            let payload: JSONValue
            do {
                jws = try CompactJWS(try FormatsCLI.readToken(token))
                payload = try jws.payloadJSON
            } catch {
                throw FormatsCLI.failure("not a compact JWS: \(error)")
            }
            let chain = JWSRendering.chain(jws)
            if json {
                print(JSONValue.object([
                    .init(key: "header", value: jws.readableHeader),
                    .init(key: "chain", value: chain),
                    .init(key: "payload", value: payload),
                ]).prettyPrinted)
            } else {
                print("header:")
                print(jws.readableHeader.prettyPrinted)
                print("chain:")
                if case .array(let certificates) = chain {
                    for (index, certificate) in certificates.enumerated() {
                        print("  [\(index)] \(certificate["subject"]?.stringValue ?? "?")")
                        print("      issuer: \(certificate["issuer"]?.stringValue ?? "?")")
                        print("      valid: \(certificate["notBefore"]?.stringValue ?? "?") to \(certificate["notAfter"]?.stringValue ?? "?")")
                    }
                }
                print("payload:")
                print(payload.prettyPrinted)
            }
        }
    }

    /// `storekit jws verify TOKEN|FILE --root CERT`.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Verify a JWS the way Apple's SignedDataVerifier does (offline).",
            discussion: """
                Checks ES256, a three-certificate x5c chaining to a root in CERT (PEM, possibly several, or DER),
                Apple's marker extensions, the signature, and certificate validity at the payload's signedDate
                (receiptCreationDate for app transactions). The payload type is detected from its fields unless
                --type is given. Exits with status 1 and the reason when the token is invalid.

                Examples:
                  storekit ca export > roots.pem
                  storekit jws verify signedTransaction.jws --root roots.pem --bundle-id com.example.app
                  storekit jws verify "$TOKEN" --root AppleRootCA-G3.cer --type notification
                """
        )

        @Argument(help: "A compact JWS, or a file containing one.")
        var token: String

        @Option(help: "Trusted root certificate(s), PEM or DER.")
        var root: String

        @Option(name: .customLong("bundle-id"), help: "The bundle ID the payload must carry.")
        var bundleID: String?

        @Option(help: "The environment the payload must carry: Sandbox, Production, Xcode or LocalTesting.")
        var environment: String?

        @Option(help: "The payload type: auto, transaction, renewal-info, app-transaction or notification.")
        var type: PayloadType = .auto

        enum PayloadType: String, ExpressibleByArgument, CaseIterable {
            case auto, transaction, renewalInfo = "renewal-info", appTransaction = "app-transaction", notification
        }

        func run() async throws {
            let text: String
            let roots: [Data]
            do {
                text = try FormatsCLI.readToken(token)
                roots = try FormatsCLI.readCertificates(path: root)
            } catch {
                throw FormatsCLI.failure("\(error.localizedDescription)")
            }
            var expectedEnvironment: AppStoreEnvironment?
            if let environment {
                guard let parsed = AppStoreEnvironment(rawValue: environment) else {
                    throw FormatsCLI.failure("--environment must be Sandbox, Production, Xcode or LocalTesting.")
                }
                expectedEnvironment = parsed
            }
            let verifier: JWSVerifier
            do {
                verifier = try JWSVerifier(rootCertificates: roots, bundleID: bundleID, environment: expectedEnvironment)
            } catch {
                throw FormatsCLI.failure("\(root): \(error)")
            }
            var kind = type
            if kind == .auto {
                let payload = (try? CompactJWS(text).payloadJSON) ?? .null
                kind =
                    if payload["notificationType"] != nil { .notification }
                    else if payload["receiptType"] != nil { .appTransaction }
                    else if payload["transactionId"] != nil { .transaction }
                    else { .renewalInfo }
            }
            let outcome: Result<(String, Date?), JWSVerificationFailure> =
                switch kind {
                case .transaction, .auto: await verifier.verifyTransaction(text).map { ("transaction", $0.signedDate) }
                case .renewalInfo: await verifier.verifyRenewalInfo(text).map { ("renewal info", $0.signedDate) }
                case .appTransaction: await verifier.verifyAppTransaction(text).map { ("app transaction", $0.receiptCreationDate) }
                case .notification: await verifier.verifyNotification(text).map { ("notification", $0.signedDate) }
                }
            switch outcome {
            case .success(let (name, date)):
                let signer = (try? CompactJWS(text).certificates.first?.subject.description) ?? "?"
                print("valid: \(name) signed \(date.map { "\($0)" } ?? "?") by \(signer)")
                if let payload = try? CompactJWS(text).payloadJSON { print(payload.prettyPrinted) }
            case .failure(let reason):
                print("invalid: \(reason.message)")
                throw ExitCode(1)
            }
        }
    }
}

extension FormatsCLI {
    /// The token itself, or the contents of the file it names.
    static func readToken(_ argument: String) throws -> String {
        if FileManager.default.fileExists(atPath: argument) {
            return try String(contentsOf: URL(fileURLWithPath: argument), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return argument.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Renderings of a JWS's certificate chain.
enum JWSRendering {
    static func chain(_ jws: CompactJWS) -> JSONValue {
        let certificates = (try? jws.certificates) ?? []
        return .array(certificates.map { certificate in
            .object([
                .init(key: "subject", value: .string(certificate.subject.description)),
                .init(key: "issuer", value: .string(certificate.issuer.description)),
                .init(key: "notBefore", value: ReceiptRendering.date(certificate.notValidBefore)),
                .init(key: "notAfter", value: ReceiptRendering.date(certificate.notValidAfter)),
            ])
        })
    }
}
