"""The case table of the Python analysis: snippets an agent might send to RunCode.

``read``: proven read-only (ALLOWed in default mode; run against the namespace, they leave no
trace: no user code, no changed variable, no new file). ``outside``: read-only, but they read a
file outside the working directories or a secret, so they are not allowed without a question.
``write``: they change state. ``escape``: attempts to get code run, or state changed, past the
analysis. Every ``write`` and ``escape`` must be not-ALLOWed in default mode.
"""

READ = [
    # pandas
    "df.head()", "df.head(2)", "df.tail(1)", "df.describe()", "df.shape", "df.columns",
    "df.dtypes", "len(df)", "df['temp'].mean()", "df.temp.max()", "df[df.temp > 10]",
    "df[df.temp > 10].head()", "df.groupby('city').temp.mean()",
    "df.groupby('city')['temp'].agg(['min', 'max'])", "df.sort_values('temp')",
    "df.sort_values('temp', ascending=False).head(2)", "df.drop(columns=['n'])",
    "df.drop(columns=['n'], inplace=False)", "df.isna().sum()", "df.value_counts('city')",
    "df['city'].str.upper()", "df['when'].dt.year", "df.loc[0, 'city']", "df.iloc[1:]",
    "df.corr(numeric_only=True)", "df.nlargest(2, 'temp')", "df.to_dict()", "df.to_string()",
    "df.memory_usage()", "df.info()", "df.select_dtypes('number').columns.tolist()",
    "s.rolling(2).mean()", "s.describe()", "gb.temp.mean()", "gb.size()",
    "df.pivot_table(index='city', values='temp')", "df.merge(df, on='city').shape",
    "pd.concat([df, df]).shape", "objdf.shape", "len(objdf)", "df.plot()", "s.plot.bar()",
    # numpy
    "arr.mean()", "arr.reshape(2, 5)", "arr.shape", "np.mean(arr)", "np.sqrt(arr).sum()",
    "arr[arr > 3]", "arr[:3] * 2", "mat @ mat", "np.linalg.norm(arr)", "mean(arr)",
    "np.unique(arr)", "np.percentile(arr, 50)", "arr.astype(int).tolist()",
    # builtins and plain values
    "len(lst)", "sorted(lst)", "sorted(lst, reverse=True)", "sorted(words, key=len)",
    "sorted(lst, key=lambda v: -v)", "max(lst)", "min(d.values())", "sum(lst) / len(lst)",
    "sum(x * 2 for x in lst)", "[w.upper() for w in words]", "{k: v + 1 for k, v in d.items()}",
    "list(map(lambda v: v * 2, lst))", "list(filter(lambda v: v > 1, lst))", "d.get('a')",
    "d['b']", "d.keys()", "text.split()", "text.upper()", "text.replace('o', '0')",
    "f'{n:>8} {x:.2f}'", "'%s has %d' % (text, n)", "print(df)", "print(lst, sep=', ')",
    "print(text, end='')", "type(df)", "isinstance(n, int)", "round(x, 1)", "abs(-n)",
    "math.sqrt(n)", "math.pi * x ** 2", "n if n > 3 else -n", "n > 3 and x < 4",
    "(1, 2) + t", "st | {3}", "nested['rows'][0]", "json.dumps(d)", "re.findall('o', text)",
    "'data' in text", "hasattr(df, 'temp')", "getattr(df, 'shape')", "repr(lst)",
    "str(when)", "when.isoformat()", "datetime.date.today()", "model is None",
    "mean", "user_function", "fig", "plt.plot(arr)", "plt.hist(arr)", "ax.get_title()",
    "max(d, key=d.get)", "sorted(words, key=str.lower)", "list(map(len, words))",
    "df.groupby('city').temp.agg('mean')", "3 ** 2 * 1000", "'-' * 40",
    "pass", "print('a'); print('b')", "df.head()\ndf.tail()",
    # files inside the working directory
    "pd.read_csv('data/train.csv')", "pd.read_csv(path).head()", "open('data/train.csv').read()",
    "open(path, 'rb').read()", "Path('data').exists()", "(folder / 'train.csv').read_text()",
    "os.path.exists('data')", "os.listdir('data')", "open(text).read()",
    # harmless twins of the session-5 red-team classes (see the ESCAPE/WRITE entries)
    "list(map(np.sqrt, arr))", "sorted(arr, key=np.abs)", "list(map(str.upper, words))",
    "'{0} {name}'.format(1, name=text)", "'{:>{w}}'.format(text, w=10)", "'{0[0]}'.format(lst)",
    "'{rows[1]}'.format_map(nested)", "df.to_string(float_format='{:.2f}'.format)",
    "np.add(arr, 1)", "arr.sum(0)", "arr.clip(0, 1)", "np.round(arr, 1)", "s.clip(0, 1)",
    "df.ffill()", "df.to_string(buf=None)", "np.load('data/a.npy', mmap_mode='r')",
    "list(Path('data').glob('*.csv'))", "list(Path('.').rglob('*.csv'))",
    "glob.glob('*.csv', root_dir=None)", "pd.read_csv('data/train.csv', dtype={'city': str})",
    "isinstance(df, pd.DataFrame)", "isinstance(n, (int, float))",
    "datetime.datetime.max", "Holder.plain", "pd.DataFrame.head",
    "s.name", "df.attrs", "df.index.name", "s.head().name", "df.plot(backend='matplotlib')",
    "s.plot.bar(backend=None)", "shutil.posix.F_OK", "list(itertools.repeat(1, 3))",
    "sum(itertools.repeat(n, times=2))", "list(itertools.islice(lst, 2))",
    "tagged_fig.get_size_inches()", "len(lst.copy())",
]

OUTSIDE = [
    "open('/etc/hostname').read()", "pd.read_csv('/etc/passwd', sep=':')",
    "open('~/.ssh/id_rsa').read()", "Path('/etc').exists()", "os.listdir('/')",
    "open('.env').read()",
    "list(Path('.').glob('../../*'))", "list(Path('data').rglob('../../*'))",
    "glob.glob('*', root_dir='/etc')",
]

WRITE = [
    "x = 1", "df2 = df.head()", "df['c'] = 1", "df.c = 1", "del lst[0]", "del d", "lst += [1]",
    "n += 1", "x: int = 3", "lst.append(4)", "lst.sort()", "lst.extend([1])", "lst.pop()",
    "lst.clear()", "d.update(a=3)", "d.setdefault('z', 1)", "d.pop('a')", "st.add(3)",
    "df.drop(columns=['n'], inplace=True)", "df.fillna(0, inplace=True)",
    "df.sort_values('temp', inplace=True)", "df.reset_index(inplace=True)",
    "df.rename(columns={'n': 'm'}, inplace=True)", "df.insert(0, 'z', 1)", "df.pop('n')",
    "df.to_csv('out.csv')", "df.to_parquet('out.parquet')", "df.to_pickle('x.pkl')",
    "df.to_excel('x.xlsx')", "df.to_json('x.json')", "s.to_csv('s.csv')",
    "df.to_csv()", "arr.sort()", "arr.fill(0)", "arr.resize(5)", "arr[0] = 9",
    "np.save('a.npy', arr)", "np.savetxt('a.txt', arr)", "arr.tofile('a.bin')",
    "plt.savefig('fig.png')", "fig.savefig('fig.png')", "open('out.txt', 'w')",
    "open('out.txt', 'a').write('x')", "open('out.txt', mode='w')", "open(path, 'r+')",
    "Path('x.txt').write_text('x')", "Path('x').touch()", "Path('x').mkdir()",
    "os.remove('data/train.csv')", "os.rename('a', 'b')", "os.makedirs('x')",
    "shutil.rmtree('data')", "shutil.copy('a', 'b')", "import pandas as pd",
    "from math import sqrt", "def f(): pass", "class C: pass", "for i in lst: print(i)",
    "with open('data/train.csv') as f: f.read()", "if n: print(n)",
    "while False: pass", "try:\n    n\nexcept Exception:\n    pass", "global n",
    "(y := 3)", "[y := 1 for v in lst]", "print(df, file=open('x', 'w'))",
    "df.info(buf=open('x', 'w'))", "np.random.seed(0)", "np.random.rand(3)",
    "df.sample(2)", "plt.style.use('ggplot')", "model.predict([1])",
    "model.score", "pd.set_option('display.max_rows', 5)", "df.apply(print)",
    "df.pipe(user_function)", "d |= {'c': 3}", "lst[0] = 2", "lst[:] = []",
    "next(iter(lst))", "os.chdir('/')", "sys.path.append('x')",
    # where a result goes: out=, buf=, inplace= on any entry; positional out/buf
    "df.to_string('x.txt')", "df.to_string(buf='x.txt')", "s.to_string('x.txt')",
    "np.add(arr, 1, out=arr)", "np.add(arr, 1, arr)", "np.sqrt(arr, arr)",
    "arr.sum(0, None, arr[:1])", "arr.clip(0, 1, out=arr)", "np.cumsum(arr, out=arr)",
    "df.clip(0, 1, inplace=True)", "df.ffill(inplace=True)",
    "df.where(df.temp > 0, 0, inplace=True)", "np.load('data/a.npy', mmap_mode='w+')",
    "list(map(np.add, [arr], [1], [arr]))", "list(map(open, ['x'], ['w']))",
    "list(itertools.starmap(open, [('x', 'w')]))",
]

ESCAPE = [
    "getattr(__builtins__, 'exec')('import os')", "__import__('os').system('id')",
    "__builtins__", "exec('x = 1')", "eval('1 + 1')", "compile('1', 'x', 'eval')",
    "breakpoint()", "input()", "help(df)", "exit()", "vars()", "globals()['x'] = 1",
    "globals()", "locals()", "vars(model)", "setattr(model, 'x', 1)", "delattr(model, 'coef_')",
    "getattr(model, name)", "getattr(model, '__class__')", "getattr(os, 'system')('id')",
    "model.__class__", "df.__dict__", "().__class__.__bases__[0].__subclasses__()",
    "lst.__len__()", "type(model).__mro__", "x.__class__.__init__.__globals__",
    "os.system('id')", "os.popen('id').read()", "subprocess.run(['ls'])",
    "subprocess.check_output('id', shell=True)", "shutil.which('sh')", "os.environ",
    "os.environ['HOME']", "os.getenv('HOME')", "sys.modules", "sys.exit()",
    "pickle.load(open('x.pkl', 'rb'))", "pickle.loads(b'x')", "pd.read_pickle('x.pkl')",
    "np.load('a.npy', allow_pickle=True)", "pd.read_csv('http://example.com/x.csv')",
    "pd.read_csv('s3://bucket/x.csv')", "pd.read_html('http://example.com')",
    "df.eval('c = temp * 2', inplace=True)", "df.query('temp > @n')", "pd.eval('1+1')",
    "model.head()", "model.describe()", "model", "print(model)", "str(model)",
    "f'{model}'", "f'{model:>10}'", "model == 1", "model + 1", "len(model)", "model[0]",
    "[m for m in model]", "{model}", "{model: 1}", "objlist", "print(objlist)",
    "sorted(objlist)", "objdf.head()", "print(objdf)", "objdf", "objarr", "objarr.sum()",
    "sneaky.anything", "sneaky", "fake.head()", "fake", "fakenp.mean(arr)", "spoofed(arr)",
    "user_function(1)", "sorted(lst, key=user_function)", "list(map(user_function, lst))",
    "sorted(lst, key=lambda v: os.system('id'))", "(lambda: os.system('id'))()",
    "(lambda v=os.system('id'): v)", "[os.system('id') for v in lst]", "api_key",
    "print(api_key)", "model.coef_", "isinstance(model, int)", "type(model)",
    "df.apply(lambda r: os.system('id'), axis=1)", "await some_coroutine()",
    "@decorator\ndef f(): pass", "lambda: 1 if exec('x') else 2",
    "df.groupby('city').apply(user_function)", "gb.apply(print)", "hash(model)",
    "open(path, 'w' if n else 'r')", "getattr(df, 'to_csv')('x.csv')",
    "[df.to_csv('x') for v in lst]", "np.load(path_var)", "undefined_name.run()",
    "%time x", "!ls", "get_ipython().system('ls')",
    # callables handed to code that calls them
    "list(map(lst.append, [1]))", "list(map(dict.update, [d], [{'x': 1}]))",
    "df.groupby(lst.append)", "df.rename(columns=d.pop)", "sorted(lst, key=lst.remove)",
    "max(lst, key=st.add)", "s.map(d.pop)", "df.sort_values('temp', key=lst.append)",
    "list(filter(st.discard, lst))", "sorted(lst, key=model.predict)",
    "pd.read_csv(path, converters={'city': eval})", "df.groupby(user_function).size()",
    # resources, mutation of your figures, file-reading parsers
    "'x' * 10**10", "10**10**10", "[0] * 1_000_000_000", "1 << 100_000_000",
    "plt.close('all')", "plt.clf()", "ax.set_title('t')", "fig.suptitle('x')",
    "pd.read_xml('x.xml')",
    # functions handed to library code that calls them: their own checks never run there
    "list(map(pd.read_csv, ['/etc/passwd']))", "list(map(getattr, [df], ['to_csv']))",
    "list(map(np.load, ['x.npy'], [True]))", "df.groupby(os.listdir).size()",
    "json.loads('NaN', parse_constant=open)", "df.rename(index=open)",
    "pd.read_csv('data/train.csv', converters={'city': open})",
    "list(map(str.format, ['{0.__class__}'], [df]))", "re.sub('o', open, text)",
    # format fields that read attributes (dunders included) of the values
    "'{0.__init__.__globals__}'.format(df)", "'{0.T}'.format(df)", "'{.shape}'.format(arr)",
    "text.format(df) + '{0.__class__}'.format(df)",
    # paths a reader takes as a URL, or folders the pattern or root_dir leaves for
    "pd.read_csv('file:/etc/passwd')", "np.loadtxt('file:/etc/hostname')",
    # class and function attributes: descriptors run, values are user objects
    "Holder.sneaky", "len(Holder.sneaky.foo)", "Holder.tracing", "Holder.tracing is None",
    "getattr(Holder, 'tracing')", "len(Holder.model)", "Holder.model", "len(tagged.payload)",
    "tagged.payload", "type(df).head",
    # isinstance/issubclass with an abc class of user code; type() building a class
    "isinstance(df, UserABC)", "issubclass(int, UserABC)", "isinstance(n, (int, UserABC))",
    "type('X', (WithHook,), {})",
    # objects that lie about their class, answer every attribute read with user code, or
    # hash with their metaclass's code: asked, and deciding runs none of it
    "liar", "loud", "loud_callable", "hashy", "Hashy", "box", "liars", "len(liar)",
    "print(loud)", "[hashy]", "isinstance(liar, int)", "box.liar", "Hashy.x", "sorted(liars)",
    "f'{liar}'", "liar == 1", "{hashy: 1}", "getattr(loud, 'x')", "list(map(loud_callable, lst))",
    # pandas objects whose name, index name, attrs or stored attribute is a user object
    "named", "print(named)", "named.head()", "named.name", "indexed", "indexed.head()",
    "with_attrs.attrs", "with_attrs", "stored.extra", "len(stored.extra)", "stored",
    # a plotting backend is a module pandas imports by name; the environment through posix
    "df.plot(backend='this')", "s.plot.bar(backend='antigravity')", "df.hist(backend='x')",
    "shutil.posix.environ", "len(shutil.posix.environ)",
    # endless iterators: consuming one loops in C, where RunCode's interrupt never arrives
    "list(itertools.count())", "max(itertools.cycle(lst))", "sum(itertools.repeat(1))",
    "sorted(itertools.repeat(n))",
    # an object user code stored on a library object with an instance __dict__ (a figure)
    "len(tagged_fig.model)", "tagged_fig.model[0]", "tagged_fig.model.anything",
]

CASES = ([(c, "read") for c in READ] + [(c, "outside") for c in OUTSIDE]
         + [(c, "write") for c in WRITE] + [(c, "escape") for c in ESCAPE])
