"""What counts as the use a question asks for: the rules `search/uses.py` scores by."""

from __future__ import annotations

import pytest

from sleuth.search.uses import code_lines, use_matcher

#: (code, whether it declares a type deriving from ``Base``), one language form each.
DERIVING = [
    ("class Foo(Base):\n    pass", True),
    ("class Foo(\n    mod.Base,\n    Other,\n):\n    pass", True),
    ("class Foo:\n    base: Base = None", False),
    ("class Base(Foo):\n    pass", False),
    ("def f(x: Base):\n    return x", False),
    ("public class Foo extends Base implements X {", True),
    ("public final class Foo\n    extends Other\n    implements Base, X {\n  Base b;", True),
    ("class Foo<T extends Base> {\n}", False),
    ("export class Foo<T> extends Base<T> {", True),
    ("interface Foo extends Base {", True),
    ("enum Foo implements Base {", True),
    ("record Point(int x) implements Base {", True),
    ("class Foo : public Base {", True),
    ("public sealed class Foo : Base, IDisposable", True),
    ("data class Foo(val x: Int) : Base()", True),
    ("object Foo extends Bar with Base", True),
    ("struct Foo: Base, Codable {", True),
    ("extension Foo: Base {", True),
    ("class Foo < Base\n  def x; end\nend", True),
    ("class Foo\n  include Base\nend", True),
    ("impl<T> Base<T> for Foo<T> {", True),
    ("impl Foo {\n    fn base(&self) -> Base {", False),
    ("impl Base {", False),
    ("instance (Show a) => Base (Foo a) where", True),
    ("instance Other Base where", False),
    ("defimpl Base, for: Foo do", True),
    ("  @behaviour Base\n", True),
    ("x = Base()\nfoo(Base)", False),
    ("type Foo struct {\n    Base\n}", False),
    ("trait Apply[F[_]] extends Base[F] with Other[F] {", True),
    ("final class Ops[F[_]: Base, A](fa: F[A]) {", False),
    ("class Box[T: Base](Other):\n    pass", False),
    ("class Chain : Base.Inner {", False),
    ("var interface: Base<Addr>? = nil", False),  # a variable so named
    ("trait C[S[_]] extends Comonad[Base[S, *]] {", False),  # a type argument
    ("public class FirebirdTests : TestBase<Base>", False),
    ("class Proxy(Mixin[Base], Flask): ...", False),
    ("class Proxy(Base[Flask], Flask): ...", True),
    ("class Foo(Base, metaclass=ABCMeta):", True),
    ("data class Tls(\n  val provider: Base,\n) : Other {", False),  # a parameter
    ("class R internal constructor(\n  val a: Address,\n) : Base {", True),
    ("class Request(private val e: Editor) : Base {", True),
]


@pytest.mark.parametrize(("code", "derives"), DERIVING)
def test_a_type_deriving_from_the_name_is_told_from_other_mentions(
    code: str, derives: bool
) -> None:
    assert use_matcher("Base", "extend")(code_lines(code)) is derives


#: (code, whether it handles ``TimeoutError``), one language form each.
CATCHING = [
    ("try:\n    x()\nexcept TimeoutError:\n    pass", True),
    ("try:\n    x()\nexcept (OSError, TimeoutError) as e:\n    pass", True),
    ("} catch (final TimeoutError | IOException e) {", True),
    ("} catch (e: TimeoutError) {", True),
    ("} catch let error as TimeoutError {", True),
    ("} catch (IOException | TimeoutError $e) {", True),
    ("rescue Net::ReadTimeout, TimeoutError => e", True),
    ("rescue e in [TimeoutError] ->", True),
    ("if errors.Is(err, TimeoutError) {", True),
    ("Err(Error::TimeoutError { .. }) => retry(),", True),
    ("return Err(TimeoutError);", False),
    ("raise TimeoutError(url)", False),
    ("class TimeoutError(Exception):", False),
    ("} catch (IOException e) {\n  throw new TimeoutError();", False),
]


@pytest.mark.parametrize(("code", "catches"), CATCHING)
def test_a_handler_of_the_name_is_told_from_raising_it(code: str, catches: bool) -> None:
    assert use_matcher("TimeoutError", "catch")(code_lines(code)) is catches


def test_each_kind_of_use_is_its_own() -> None:
    """A call is no raise, an import no assignment: each kind matches its own form only."""
    forms = {
        "call": "result = retry(job)",
        "raise": "raise RetryError(job)",
        "catch": "except RetryError:\n    pass",
        "import": "from app.jobs import Retry",
        "assign": "self.retry = 3",
    }
    names = {
        "call": "retry",
        "raise": "RetryError",
        "catch": "RetryError",
        "import": "Retry",
        "assign": "retry",
    }
    for kind, name in names.items():
        matched = {form for form, text in forms.items() if use_matcher(name, kind)(text)}
        assert matched == {kind}, (kind, matched)


#: (language, code, whether it calls ``retry``) where calls need no brackets.
BARE_CALLS = [
    ("ruby", "  retry job", True),
    ("ruby", "  client.retry", True),
    ("ruby", "  Jobs.retry(job)", True),
    ("ruby", "  callbacks = [:retry]", False),
    ("ruby", "  @retry = 1", False),
    ("ruby", "  options = { retry: 3 }", False),
    ("ruby", "  retry = 5", False),
    ("ruby", "def self.retry", False),
    ("elixir", "  |> retry", True),
    ("elixir", "  Jobs.retry job", True),
    ("elixir", "  Enum.map(jobs, &retry/1)", False),
    ("elixir", "  @retry 3", False),
    ("elixir", "  [retry: 3]", False),
    ("haskell", "  x <- retry 3 act", True),
    ("haskell", "  mapM_ retry jobs", True),
    ("haskell", "retry :: Int -> IO a -> IO a", False),
    ("haskell", "retry n act = do", False),
    ("haskell", "import Control.Retry (retry)", False),
    ("haskell", "module Jobs (retry) where", False),
    ("haskell", "module Jobs\n  ( run\n  , retry\n  ) where", False),  # an export list
    ("haskell", "import Control.Retry\n  ( retry\n  )\n\nrun = go", False),
    ("bash", '  retry 3 curl -fsS "$url"', True),
    ("bash", "  out=$(retry 3 fetch)", True),
    ("bash", "  if retry 3 check; then", True),
    ("bash", "  fetch || retry 3 fetch", True),
    ("bash", '  echo "retry failed"', False),
    ("bash", "function retry {", False),
    ("python", "  retry", False),  # a reference, not a call
]


#: (language, code, whether it makes a ``Config``), one form each.
CONSTRUCTING = [
    ("python", "cfg = Config(path)", True),
    ("java", "return new Config(path);", True),
    ("csharp", "var c = new App.Config { Name = x };", True),
    ("go", "c := &Config{Addr: a}", True),
    ("go", "return Config{}", True),
    ("go", "c := Config(raw)", False),  # a conversion
    ("rust", "let c = Config { addr };", True),
    ("rust", "let c = Config::new(a);", True),
    ("rust", "let c = Config::default();", True),
    ("ruby", "c = Config.new(opts)", True),
    ("elixir", "%Config{name: n}", True),
    ("cpp", "auto c = std::make_unique<Config>(a);", True),
    ("kotlin", "val c = Config.builder().build()", True),
    ("python", "class Config(Base):", False),
    ("go", "type Config struct {", False),
    ("rust", "impl Config {", False),
    ("python", "def load(c: Config) -> Config:", False),
    ("go", "func (c *Config) Load() error {", False),
    ("python", "if isinstance(x, Config):", False),
    ("python", "Config.load(path)", False),
    ("kotlin", "data class Config(val a: Int)", False),
    ("rust", "pub fn new() -> Config {", False),
    ("kotlin", "fun build(): Config {", False),  # a return type
    ("kotlin", "inline fun <T> Config.withLock(action: () -> T): T {", False),
    ("java", "public Config() {", False),  # a constructor's own declaration
    ("java", "Config(String value) {", False),  # ... without a modifier
    ("csharp", "static Config()", False),
    ("java", "private final Config c = new Config(a);", True),
    ("csharp", "x.Add(new Config.Identity(a));", False),  # an inner type's
    ("rust", "inner: Config { a: 1 },", True),
    ("kotlin", "Config(a) { it.x = 1 }", True),  # a trailing lambda
    ("scala", "case Config(f) => loop(f)", False),  # a pattern
    ("swift", "var address: Config { storage.address }", False),  # a property's type
]


@pytest.mark.parametrize(("language", "code", "constructs"), CONSTRUCTING)
def test_making_a_value_of_the_type_is_told_from_naming_it(
    language: str, code: str, constructs: bool
) -> None:
    assert use_matcher("Config", "construct", 0, language)(code_lines(code)) is constructs


#: (code, whether it calls ``retry``): a declaration has a type or keyword before the name.
DECLARING = [
    ("x = retry(3)", True),
    ("obj.retry(3)", True),
    ("return retry(x);", True),
    ("EXPECT_TRUE(retry(3));", True),
    ("auto r = Backoff::retry(3);", True),
    ("await retry(x)", True),
    ("a && retry(1)", True),
    ("void retry(int n);", False),
    ("std::vector<int> retry(int n);", False),
    ("const char* retry(int);", False),
    ("int Backoff::retry(int n) {", False),
    ("  public static void retry(int n) {", False),
    ("fn retry(&self) {", False),
    ("def retry(x):", False),
    ("function M.retry(n)", False),  # Lua: put in a table
    ("local function M:retry(n)", False),
    ("function M.other() M.retry(1) end", True),
]


@pytest.mark.parametrize(("code", "calls"), DECLARING)
def test_a_declaration_is_no_call(code: str, calls: bool) -> None:
    assert use_matcher("retry", "call")(code_lines(code)) is calls


@pytest.mark.parametrize(
    ("code", "typescript", "kotlin"),
    [
        ("  retry(n: number): Promise<void> {", False, True),  # a method; a trailing lambda
        ("  retry(x) {", False, True),
        ("  retry(3).then(() => {", True, True),
        ("  if (retry(x)) {", True, True),
        ("retry(3)", True, True),
        ("  retry(\n    n: number,\n    delay: number,\n  ): Promise<void> {", False, True),
        ("  retry(\n    3,\n  ).then(() => {", True, True),
        ("  retry({\n    n: 3,\n  })", True, True),
    ],
)
def test_a_method_opening_its_body_is_no_call_in_javascript(
    code: str, typescript: bool, kotlin: bool
) -> None:
    """``retry(x) {`` defines a method in JavaScript and TypeScript; in Kotlin and Swift
    it calls ``retry`` with a trailing lambda."""
    assert use_matcher("retry", "call", 0, "typescript")(code_lines(code)) is typescript
    assert use_matcher("retry", "call", 0, "kotlin")(code_lines(code)) is kotlin


#: (language, code, whether it calls ``retry``): what strings say and comments after
#: code are no call, what a string interpolates is.
IN_LITERALS = [
    ("python", 'raise ValueError("call retry() first")', False),
    ("python", "log.info('retry() failed')", False),
    ("python", 'msg = f"{retry(3)} attempts"', True),
    ("kotlin", "server.close() // retry() is not enough", False),
    ("kotlin", 'val s = "${retry()} done"', True),
    ("swift", '@available(*, deprecated, renamed: "retry(_:)")', False),
    ("swift", 'let s = "now \\(retry()) times"', True),
    ("ruby", 'puts "#{retry(1)} done" # retry() again', True),
    ("ruby", "puts 'retry() later' # retry() again", False),
    ("rust", "let c = 'x'; retry(c)", True),
    ("elixir", "@spec retry(t) :: t", False),
]


def test_a_swift_initialiser_is_declared_without_a_keyword() -> None:
    matcher = use_matcher("init", "call", 0, "swift")
    assert not matcher(code_lines("init(_ channel: Channel) {"))
    assert matcher(code_lines("self.init(channel)"))
    assert matcher(code_lines("let c = Client.init(channel)"))


@pytest.mark.parametrize("language", ["yaml", "json", "markdown", "text"])
def test_data_and_prose_call_nothing(language: str) -> None:
    """``retry()`` in a YAML note or a README names the function: a mention, no call."""
    assert not use_matcher("retry", "call", 0, language)(code_lines("- 'retry() on failure'"))
    assert use_matcher("retry", "call", 0, "python")(code_lines("retry() # on failure"))


#: (language, code, whether it calls ``retry``): declarations with nothing before the
#: name, or with a path that says where the definition goes.
BARE_DECLARATIONS = [
    ("go", "func (c *Client) retry(n int) (int, error) {", False),
    ("go", "\tretry(n int) error", False),  # an interface's method
    ("go", "\tretry(ctx)", True),
    ("go", "if err := retry(x); err != nil {", True),
    ("cpp", "~retry() override { std::fclose(fp_); }", False),
    ("cpp", "x = ~retry(3);", True),
    ("cpp", "retry() : count(0) {}", False),  # a constructor's initializer list
    ("c", "retry(int n)\n{\n  return 0;\n}", False),  # the type on the line above
    ("c", "retry(n);", True),
    ("java", "retry(int a) {", False),  # a constructor without a modifier
    ("ruby", "def object.retry(*) fail 'no' end", False),
    ("bash", "retry() {", False),
    (
        "java",
        "/**\n * see {@link #retry(String)}, which\n also {@link #retry()}\n */\nint x;",
        False,
    ),
    ("kotlin", "retry(x) {", True),  # a trailing lambda
    ("csharp", "object? IHandler.retry(Type t, object value)", False),  # explicit
    ("csharp", "return handler.retry(x);", True),
    ("cpp", "Store::retry(int n) const {", False),  # defined outside its class
    ("cpp", "auto n = Store::retry(3);", True),
    ("elixir", "    retry =\n      compute()", False),  # a variable, assigned below
]


@pytest.mark.parametrize(
    ("language", "code", "calls"), BARE_CALLS + IN_LITERALS + BARE_DECLARATIONS
)
def test_a_call_is_told_by_its_language_from_text_and_declarations(
    language: str, code: str, calls: bool
) -> None:
    """A call without brackets counts where the language allows it; what strings say,
    comments after code and declarations with nothing before the name are no call."""
    assert use_matcher("retry", "call", 0, language)(code_lines(code)) is calls
