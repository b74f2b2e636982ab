import Foundation
import Testing

@testable import StoreKitConfiguration

@Suite("JSON syntax errors report line and column")
struct SyntaxErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fixture: String
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { fixture }
    }

    static let fixtureCases = [
        Case(
            fixture: "syntax-missing-comma.storekit", line: 6, column: 7,
            message: "Expected ',' or '}' after the value of \"familyShareable\", found '\"'."),
        Case(fixture: "syntax-trailing-comma.storekit", line: 11, column: 3, message: "Trailing comma before '}'."),
        Case(
            fixture: "syntax-truncated.storekit", line: 6, column: 1,
            message: "The file ends inside the object opened at line 3, column 5."),
        Case(fixture: "syntax-comment.storekit", line: 2, column: 3, message: "JSON has no comments."),
    ]

    @Test("Broken fixture files", arguments: fixtureCases)
    func brokenFixture(_ testCase: Case) throws {
        let error = try loadingError(fixture: testCase.fixture)
        #expect(error.issues.count == 1)
        let issue = try #require(error.issues.first)
        #expect(issue.code == .syntaxError)
        #expect(issue.location == .position(line: testCase.line, column: testCase.column))
        #expect(issue.message == testCase.message)
        #expect(error.description.hasPrefix("\(testCase.fixture):\(testCase.line):\(testCase.column): \(testCase.message) "))
    }

    static let inlineCases: [(json: String, line: Int, column: Int, message: String)] = [
        ("", 1, 1, "The file is empty."),
        ("{\n  \"a\" : tru\n}", 2, 9, "Expected a value, found 'tru'."),
        ("{\n  \"a\" : 'x'\n}", 2, 9, "Strings must use double quotes, found a single quote."),
        ("{\n  a : 1\n}", 2, 3, "Expected a key in double quotes, found 'a'."),
        ("{\n  \"a\" 1\n}", 2, 7, "Expected ':' after the key \"a\", found '1'."),
        ("{ \"a\" : [1, 2,] }", 1, 15, "Trailing comma before ']'."),
        ("{ \"a\" : 01 }", 1, 9, "Numbers cannot have leading zeros."),
        ("{ \"a\" : 1.e5 }", 1, 9, "Malformed number '1.e5'."),
        ("{ \"a\" : \"x\\qy\" }", 1, 11, "\\q is not a JSON escape."),
        ("{ \"a\" : \"open\n\" }", 1, 9, "This string is not closed before the end of the line."),
        ("{ \"a\" : 1, \"a\" : 2 }", 1, 12, "The key \"a\" appears twice in the same object."),
        ("{ \"é\" : \"ü\", \"b\" : } ", 1, 20, "Expected a value, found '}'."),
        ("{ } { }", 1, 5, "Unexpected '{' after the end of the top-level value."),
        ("{ \"a\" : \"\\ud800\" }", 1, 10, "This \\u escape is a lone UTF-16 surrogate."),
        ("\r\n{\r\n  \"a\" : ]\r\n}", 3, 9, "Expected a value, found ']'."),
    ]

    @Test("Inline documents", arguments: inlineCases.indices)
    func inline(_ index: Int) {
        let testCase = Self.inlineCases[index]
        do {
            _ = try StoreKitConfigurationFile(data: Data(testCase.json.utf8), sourceName: "inline.storekit")
            Issue.record("parsed \(testCase.json.debugDescription)")
        } catch {
            #expect(error.issues.map(\.code) == [.syntaxError])
            #expect(error.issues.first?.location == .position(line: testCase.line, column: testCase.column))
            #expect(error.issues.first?.message == testCase.message)
        }
    }

    @Test("Invalid UTF-8 inside a string is a syntax error, not a crash")
    func invalidUTF8() {
        var bytes = Array("{ \"a\" : \"".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\" }".utf8)
        do {
            _ = try StoreKitConfigurationFile(data: Data(bytes))
            Issue.record("parsed")
        } catch {
            #expect(error.issues.first?.message == "This string is not valid UTF-8.")
            #expect(error.issues.first?.location == .position(line: 1, column: 9))
        }
    }

    @Test("Escapes decode, a byte order mark is tolerated, and deep nesting is refused cleanly")
    func parserEdges() throws {
        var parser = JSONParser(bytes: Array("\u{FEFF}{ \"a\" : \"\\u00e9\\ud83d\\ude00\\/\\n\" }".utf8))
        #expect(try parser.parseDocument() == .object(["a": .string("é😀/\n")]))

        var deep = JSONParser(bytes: Array(String(repeating: "[", count: 600).utf8))
        #expect(throws: JSONParser.SyntaxError.self) { try deep.parseDocument() }
    }
}
