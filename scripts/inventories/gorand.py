import re, sys
COOKED=[int(x) for x in re.findall(r'\d+', open('/tmp/inv/cooked.txt').read())]
assert len(COOKED)==607, len(COOKED)
LEN,TAP,MASK,A,M,Q,R=607,273,(1<<63)-1,48271,(1<<31)-1,44488,3399
def tdiv(a,b):
    q=abs(a)//abs(b); return q if (a>=0)==(b>=0) else -q
def tmod(a,b): return a-b*tdiv(a,b)
def seedrand(x):
    hi=tdiv(x,Q); lo=tmod(x,Q); x=A*lo-R*hi
    if x<0: x+=M
    return x
def i64(v):
    v&=(1<<64)-1
    return v-(1<<64) if v>=1<<63 else v
class Src:
    def __init__(s,seed):
        s.tap=0; s.feed=LEN-TAP
        seed=tmod(seed,M)
        if seed<0: seed+=M
        if seed==0: seed=89482311
        x=seed; s.vec=[0]*LEN
        for i in range(-20,LEN):
            x=seedrand(x)
            if i>=0:
                u=x<<40; x=seedrand(x); u^=x<<20; x=seedrand(x); u^=x; u^=COOKED[i]
                s.vec[i]=u&MASK
    def int63(s):
        s.tap-=1
        if s.tap<0: s.tap+=LEN
        s.feed-=1
        if s.feed<0: s.feed+=LEN
        x=(s.vec[s.feed]+s.vec[s.tap])&MASK
        s.vec[s.feed]=x; return x
class Rand:
    def __init__(s,seed): s.src=Src(seed); s.pos=0; s.val=0
    def read(s,n):
        out=bytearray()
        for _ in range(n):
            if s.pos==0: s.val=s.src.int63(); s.pos=7
            out.append(s.val&0xff); s.val>>=8; s.pos-=1
        return bytes(out)
def ghash(s):
    h=0
    for c in s: h=i64(31*h+ord(c))
    return h
def uuids(seed,count):
    r=Rand(ghash(seed)); res=[]
    for _ in range(count):
        b=r.read(16).hex()
        res.append("gpu-%s-%s-%s-%s-%s"%(b[:8],b[8:12],b[12:16],b[16:20],b[20:]))
    return res
if __name__=="__main__":
    for u in uuids(sys.argv[1], int(sys.argv[2])): print(u)
