/* A model of relayout's f32 64^4 permutation 3,2,1,0 at one worker (issue #43): loop orders and
   prefetch schemes for its DRAM traffic, outside the engine.
   in[a,b,c,d] (a: 1 MiB, b: 16 KiB, c: 256 B, d: 4 B) -> out[d,c,b,a] (d: 1 MiB, c: 16 KiB, b: 256 B).
   A kernel call (b,c,cb): 64 a x 16 d, four 16x16 blocks down the source (transposeHalves32, NT stores)
   -> 16 destination rows x 256 B. Each variant is timed in thread CPU time against the faster of an
   AVX-512 NT copy and glibc memcpy of the same 64 MiB in the same pass; every pass runs every variant
   named, in the order given; medians over the passes (ratio, and the perm's and the copy's GB/s).
   Build: gcc -O3 -march=x86-64-v4 -o m2 perm3210-order-model.c      Run: ./m2 PASSES VARIANT...
   VARIANT:
     0,PFO,PFK[,GC,GB]  the engine's nest: c x b groups GC x GB (default 8 x 4: 2 KiB source runs, 1 KiB
                        destination runs), b outer, c, then cb; each row's line PFO bytes on asked for
                        with hint PFK (1 T0, 2 T1, 3 NTA, 4 T2; PFO 0: none).
     M,CM,BM,ORD,PFH,PFL,PFO,PFK  macro blocks of CM c x BM b (16 KiB x CM x BM: 16x16 4 MiB, 32x32 16 MiB;
                        CM 64 makes each a row's part one run of BM x 16 KiB); the NEXT macro block's
                        source asked for in its own sequential order (a row at a time, each (a,b) piece
                        whole), PFL lines after each call, hint PFH (0 none, 1 T0, 2 T1, 3 T2, 4 NTA);
                        inside, ORD 1: for cb, c, b (each destination row's BM x 256 B run written in BM
                        consecutive calls); 2: for c, cb, b; 3: for b, c, cb; 4: 4 x 8 groups as the
                        engine; 5: for c, cb, b with no macro order change (CM x BM = the group);
                        6: for cb, b, c. In-kernel prefetch PFO/PFK as above (16384: the next call's rows).
     Q,CA,CD,CO,PFO,PFK calls of CA a x CD d (32x32: 32 source rows x 2 lines, 32 destination rows x 2
                        lines), d0 outer (CO 0) or a0 outer (CO 1), in the engine's 8 x 4 groups.
     K,SKEW,PFO,PFK[,GC,GB]  the engine's nest with the 4 blocks of a call at skewed column blocks
                        (block i at (cb + SKEW*i) & 3), so their source lines fall in 4 L1 sets; each
                        block prefetches the line it reads next.
     S,NEXT,PFK[,ORD,GC,GB]  each 64x64 block's source copied into a 16 KiB L1 scratch a row at a time
                        (4 lines a row in turn), the next block's asked for the same way (NEXT bytes on;
                        -1: the next block in the nest; PFK 1 T0, 2 T1), then transposed from the scratch.
     A,AG,PFO,PFK[,GC,GB]  the engine's nest once per AG source rows (a groups outermost, AG/16 blocks
                        a call): only AG source streams live, each destination row AG x 4 bytes a visit.
   Environment: HUGE=1 2 MiB pages (madvise); PADS/PADD=bytes added to the source/destination row
   stride (layout probe: rows off the 4 KiB L1 set stride); SRCL2=1 (2) the source addresses folded into
   a 256 KiB region, rows 4 KiB (4 KiB + 64 B) apart, so the source comes from L2 and only the
   destination goes to DRAM (wrong result, not checked). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include <sys/mman.h>
#define N 64
#define MB (1<<20)
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
typedef __m512i V;
#define ST(p,v) _mm512_stream_si512((void*)(p),(v))
#define L512(p) _mm512_load_si512((const void*)(p))
#define L256(p) _mm256_load_si256((const __m256i*)(p))
static long PFO=64;     /* in-kernel prefetch: bytes past each loaded row (0: none) */
static int PFK=2;       /* its hint: 1 T0, 2 T1 */
static inline void pfk(const char*p){ if(!PFO)return; if(PFK==1)_mm_prefetch(p+PFO,_MM_HINT_T0); else if(PFK==3)_mm_prefetch(p+PFO,_MM_HINT_NTA); else if(PFK==4)_mm_prefetch(p+PFO,_MM_HINT_T2); else _mm_prefetch(p+PFO,_MM_HINT_T1);}
static inline void t16h(char*d,long ds,const char*s,long ss){
  V P[16];
  for(int g=0;g<2;g++)for(int r=0;r<4;r++){int a=g*8+r,b=a+4;
    const char*pa=s+a*ss,*pb=s+b*ss;
    V X=L512(pa); pfk(pa); V Z=_mm512_broadcast_i64x4(L256(pa+32));
    V W=L512(pb); pfk(pb); V Y=_mm512_broadcast_i64x4(L256(pb));
    P[g*4+r]=_mm512_mask_blend_epi32(0xFF00,X,Y);
    P[8+g*4+r]=_mm512_mask_blend_epi32(0xFF00,Z,W);}
  V U[16];
  for(int q=0;q<4;q++){V*p=P+4*q; V a0=_mm512_unpacklo_epi32(p[0],p[1]),a1=_mm512_unpackhi_epi32(p[0],p[1]),a2=_mm512_unpacklo_epi32(p[2],p[3]),a3=_mm512_unpackhi_epi32(p[2],p[3]);
    U[4*q+0]=_mm512_unpacklo_epi64(a0,a2);U[4*q+1]=_mm512_unpackhi_epi64(a0,a2);U[4*q+2]=_mm512_unpacklo_epi64(a1,a3);U[4*q+3]=_mm512_unpackhi_epi64(a1,a3);}
  V o[16];
  for(int h=0;h<2;h++)for(int t=0;t<4;t++){V u=U[8*h+t],v=U[8*h+4+t];
    o[8*h+t]=_mm512_shuffle_i32x4(u,v,0x88);o[8*h+4+t]=_mm512_shuffle_i32x4(u,v,0xDD);}
  for(int j=0;j<16;j++)ST(d+j*ds,o[j]);
}
static char *S,*D; static long SR=MB,DR=MB;
/* one kernel call at (b,c,cb): 4 blocks down the source */
static int SRCL2=0;
static inline void call(int b,int c,int cb){
  char*d=D+(long)cb*16*DR+(long)c*16384+b*256; const char*s=S+(long)b*16384+c*256+cb*64;
  if(SRCL2){long rs=SRCL2==1?4096:4160; const char*s2=S+(((long)b*16384+c*256+cb*64)&4095); for(int i=0;i<4;i++)t16h(d+i*64,DR,s2+(long)i*16*rs,rs); return;}
  for(int i=0;i<4;i++)t16h(d+i*64,DR,s+(long)i*16*SR,SR);
}
/* calls of CA a x CD d (16x16 blocks: a inside d within a call), calls ordered d0 outer (CO 0) or a0 outer (CO 1) */
static int CA=64,CD=16,CO=0;
static inline void callq(int b,int c,int a0,int d0){
  for(int dd=d0;dd<d0+CD;dd+=16)for(int aa=a0;aa<a0+CA;aa+=16)
    t16h(D+(long)dd*DR+(long)c*16384+b*256+aa*4,DR,S+(long)aa*SR+(long)b*16384+c*256+dd*4,SR);
}
static void permq(void){
  int GJ=4,GK=8;
  for(int jo=0;jo<N/GJ;jo++)for(int ko=0;ko<N/GK;ko++)for(int ji=0;ji<GJ;ji++)for(int ki=0;ki<GK;ki++){
    int b=jo*GJ+ji,c=ko*GK+ki;
    if(CO==0){for(int d0=0;d0<64;d0+=CD)for(int a0=0;a0<64;a0+=CA)callq(b,c,a0,d0);}
    else {for(int a0=0;a0<64;a0+=CA)for(int d0=0;d0<64;d0+=CD)callq(b,c,a0,d0);}
  }
  _mm_sfence();
}
static int G0J=4,G0K=8;
static int SKEW=0;
/* call with its 4 blocks down the source at skewed columns: block i at column block (cb+i)&3 */
static inline void callk(int b,int c,int cb){
  for(int i=0;i<4;i++){int k=(cb+SKEW*i)&3;
    int kn=(cb+1+SKEW*i)&3; PFO=(cb<3?0:256)+(kn-k)*64;
    t16h(D+(long)k*16*DR+(long)c*16384+b*256+i*64,DR,S+(long)i*16*SR+(long)b*16384+c*256+k*64,SR);}
}
/* scratch: each 64x64 block's source rows copied whole (4 lines a row in turn) into L1, the next
   block's (SPF bytes on: 256 = the next c) asked for 4 lines a row with T1 (SPH 2) or T0 (1); then transposed from L1 */
static char scr[16384] __attribute__((aligned(64)));
static long SPF=256; static int SPH=2, SORD=0;
static inline void blockscr(int b,int c,long nxt){
  const char*s=S+(long)b*16384+c*256;
  for(int a=0;a<64;a++){const char*p=s+(long)a*SR; V x0=L512(p),x1=L512(p+64),x2=L512(p+128),x3=L512(p+192);
    if(nxt){const char*q=p+nxt; if(SPH==1){_mm_prefetch(q,_MM_HINT_T0);_mm_prefetch(q+64,_MM_HINT_T0);_mm_prefetch(q+128,_MM_HINT_T0);_mm_prefetch(q+192,_MM_HINT_T0);}
      else {_mm_prefetch(q,_MM_HINT_T1);_mm_prefetch(q+64,_MM_HINT_T1);_mm_prefetch(q+128,_MM_HINT_T1);_mm_prefetch(q+192,_MM_HINT_T1);}}
    _mm512_store_si512(scr+a*256,x0);_mm512_store_si512(scr+a*256+64,x1);_mm512_store_si512(scr+a*256+128,x2);_mm512_store_si512(scr+a*256+192,x3);}
  long po=PFO; PFO=0;
  char*d=D+(long)c*16384+b*256;
  if(SORD==0){for(int cb=0;cb<4;cb++)for(int i=0;i<4;i++)t16h(d+(long)cb*16*DR+i*64,DR,scr+i*16*256+cb*64,256);}
  else {for(int i=0;i<4;i++)for(int cb=0;cb<4;cb++)t16h(d+(long)cb*16*DR+i*64,DR,scr+i*16*256+cb*64,256);}
  PFO=po;
}
static void permscr(void){
  int GJ=G0J,GK=G0K;
  for(int jo=0;jo<N/GJ;jo++)for(int ko=0;ko<N/GK;ko++)for(int ji=0;ji<GJ;ji++)for(int ki=0;ki<GK;ki++){
    int b=jo*GJ+ji,c=ko*GK+ki; long nxt=SPF;
    if(SPF<0){ /* exact next block in the nest */
      int nb=b,nc=c+1; if(ki==GK-1){nc=ko*GK; nb=b+1; if(ji==GJ-1){nb=jo*GJ; nc=ko*GK+GK; if(ko==N/GK-1){nc=0;nb=jo*GJ+GJ;}}}
      nxt=(nb<64)?((long)(nb-b)*16384+(long)(nc-c)*256):0;}
    blockscr(b,c,nxt);}
  _mm_sfence();
}
/* a-groups outermost: the whole nest once per AG source rows (AG/16 blocks a call), so only AG
   source streams are live; each destination row gets AG*4 bytes a visit */
static int AG=16;
static void permag(void){
  int GJ=G0J,GK=G0K;
  for(int a0=0;a0<64;a0+=AG)
  for(int jo=0;jo<N/GJ;jo++)for(int ko=0;ko<N/GK;ko++)for(int ji=0;ji<GJ;ji++)for(int ki=0;ki<GK;ki++)
    for(int cb=0;cb<4;cb++){int b=jo*GJ+ji,c=ko*GK+ki;
      char*d=D+(long)cb*16*DR+(long)c*16384+b*256+a0*4; const char*s=S+(long)a0*SR+(long)b*16384+c*256+cb*64;
      for(int i=0;i<AG/16;i++)t16h(d+i*64,DR,s+(long)i*16*SR,SR);}
  _mm_sfence();
}
static void perm0(void){
  int GJ=G0J,GK=G0K;
  for(int jo=0;jo<N/GJ;jo++)for(int ko=0;ko<N/GK;ko++)for(int ji=0;ji<GJ;ji++)for(int ki=0;ki<GK;ki++)
    for(int cb=0;cb<4;cb++){if(SKEW)callk(jo*GJ+ji,ko*GK+ki,cb); else call(jo*GJ+ji,ko*GK+ki,cb);}
  _mm_sfence();
}
/* next-macro prefetch cursor: the macro block's source in sequential order, a row (a) at a time,
   each (a,b) piece's c-range whole */
static int CM=16,BM=16,PFH=2,PFL=64,MORD=1;
static long pf_a,pf_b,pf_off,pf_b0,pf_c0,pf_live;
static void pf_start(int b0,int c0){pf_b0=b0;pf_c0=c0;pf_a=0;pf_b=0;pf_off=0;pf_live=1;}
static inline void pf_some(void){
  if(!pf_live||!PFH)return;
  for(int k=0;k<PFL;k++){
    const char*p=S+pf_a*SR+(pf_b0+pf_b)*16384+pf_c0*256+pf_off;
    switch(PFH){case 1:_mm_prefetch(p,_MM_HINT_T0);break;case 2:_mm_prefetch(p,_MM_HINT_T1);break;case 3:_mm_prefetch(p,_MM_HINT_T2);break;default:_mm_prefetch(p,_MM_HINT_NTA);}
    pf_off+=64; if(pf_off==CM*256){pf_off=0; if(++pf_b==BM){pf_b=0; if(++pf_a==64){pf_live=0;return;}}}
  }
}
/* MORD 1: for cb, c, b  (each destination row's BM*256-byte run written over BM consecutive calls)
   MORD 2: for c, cb, b  (same runs, the four d quarters of one c before the next c)
   MORD 3: for b, c, cb  (source rows' CM*256-byte runs read in order; destination as today's nest)
   MORD 4: for gb(4), gc(8) groups inside the macro as perm0 */
static void perm_macro(void){
  int nb=N/BM,nc=N/CM;
  for(int bo=0;bo<nb;bo++)for(int co=0;co<nc;co++){
    int b0=bo*BM,c0=co*CM;
    int nco=co+1,nbo=bo; if(nco==nc){nco=0;nbo=bo+1;}
    if(nbo<nb)pf_start(nbo*BM,nco*CM); else pf_live=0;
    if(MORD==1){for(int cb=0;cb<4;cb++)for(int c=c0;c<c0+CM;c++)for(int b=b0;b<b0+BM;b++){call(b,c,cb);pf_some();}}
    else if(MORD==2){for(int c=c0;c<c0+CM;c++)for(int cb=0;cb<4;cb++)for(int b=b0;b<b0+BM;b++){call(b,c,cb);pf_some();}}
    else if(MORD==3){for(int b=b0;b<b0+BM;b++)for(int c=c0;c<c0+CM;c++)for(int cb=0;cb<4;cb++){call(b,c,cb);pf_some();}}
    else if(MORD==5){for(int c=c0;c<c0+CM;c++)for(int cb=0;cb<4;cb++)for(int b=b0;b<b0+BM;b++){call(b,c,cb);pf_some();}}
    else if(MORD==6){for(int cb=0;cb<4;cb++)for(int b=b0;b<b0+BM;b++)for(int c=c0;c<c0+CM;c++){call(b,c,cb);pf_some();}}
    else {for(int jo=b0;jo<b0+BM;jo+=4)for(int ko=c0;ko<c0+CM;ko+=8)for(int ji=0;ji<4;ji++)for(int ki=0;ki<8;ki++)for(int cb=0;cb<4;cb++){call(jo+ji,ko+ki,cb);pf_some();}}
  }
  _mm_sfence();
}
static void ntcopy(void){
  long n=(long)N*N*N*N*4;
  for(long o=0;o<n;o+=256){
    V a=L512(S+o),b=L512(S+o+64),c=L512(S+o+128),e=L512(S+o+192);
    ST(D+o,a);ST(D+o+64,b);ST(D+o+128,c);ST(D+o+192,e);}
  _mm_sfence();
}
/* a variant: "0" = perm0; "M,CM,BM,MORD,PFH,PFL,PFO,PFK" */
typedef struct{int m,cm,bm,mord,pfh,pfl,pfo,pfk;}VR;
static void setv(VR v){PFO=v.pfo;PFK=v.pfk;CM=v.cm;BM=v.bm;MORD=v.mord;PFH=v.pfh;PFL=v.pfl;}
static void run(VR v){setv(v); SKEW=0; if(v.m==5){AG=v.mord;G0K=v.cm;G0J=v.bm;permag();return;} if(v.m==4){G0K=v.cm;G0J=v.bm;SPF=v.pfo;SPH=v.pfk;SORD=v.mord;permscr();return;} if(v.m==3){SKEW=v.mord;G0K=v.cm;G0J=v.bm;perm0();return;} if(!v.m){G0K=v.cm;G0J=v.bm;} if(v.m==2){CA=v.cm;CD=v.bm;CO=v.mord;permq();} else if(v.m)perm_macro(); else perm0();}
int main(int argc,char**argv){
  long n=(long)N*N*N*N*4;
  if(getenv("PADS"))SR+=atol(getenv("PADS")); if(getenv("PADD"))DR+=atol(getenv("PADD"));
  S=aligned_alloc(2*MB,n+64*SR-64*MB);D=aligned_alloc(2*MB,n+64*DR-64*MB); if(getenv("HUGE")){madvise(S,n,MADV_HUGEPAGE);madvise(D,n,MADV_HUGEPAGE);}
  float*f=(float*)S; for(long i=0;i<(n+64*SR-64*MB)/4;i++)f[i]=i; memset(D,0,n);
  if(getenv("HUGE")){FILE*fp=fopen("/proc/self/smaps_rollup","r");char l[256];while(fgets(l,256,fp))if(strstr(l,"AnonHuge"))fputs(l,stdout);fclose(fp);}
  if(getenv("SRCL2"))SRCL2=atoi(getenv("SRCL2"));
  int reps=atoi(argv[1]); int nk=argc-2; VR vs[16];
  for(int i=0;i<nk;i++){VR v={0,16,16,1,2,64,64,2}; if(argv[2+i][0]=='A'){v.m=5; v.cm=8;v.bm=4;v.mord=16; sscanf(argv[2+i]+1,",%d,%d,%d,%d,%d",&v.mord,&v.pfo,&v.pfk,&v.cm,&v.bm);} else if(argv[2+i][0]=='S'){v.m=4; v.cm=8;v.bm=4;v.mord=0;v.pfo=256;v.pfk=2; sscanf(argv[2+i]+1,",%d,%d,%d,%d,%d",&v.pfo,&v.pfk,&v.mord,&v.cm,&v.bm);} else if(argv[2+i][0]=='K'){v.m=3; v.cm=8;v.bm=4;v.mord=1; sscanf(argv[2+i]+1,",%d,%d,%d,%d,%d",&v.mord,&v.pfo,&v.pfk,&v.cm,&v.bm);} else if(argv[2+i][0]=='Q'){v.m=2; sscanf(argv[2+i]+1,",%d,%d,%d,%d,%d",&v.cm,&v.bm,&v.mord,&v.pfo,&v.pfk);} else if(argv[2+i][0]=='M'){v.m=1; sscanf(argv[2+i]+1,",%d,%d,%d,%d,%d,%d,%d",&v.cm,&v.bm,&v.mord,&v.pfh,&v.pfl,&v.pfo,&v.pfk);} else {v.cm=8;v.bm=4;sscanf(argv[2+i],"0,%d,%d,%d,%d",&v.pfo,&v.pfk,&v.cm,&v.bm);} vs[i]=v;}
  for(int i=0;i<nk&&!SRCL2;i++){ memset(D,0,n+64*DR-64*MB); run(vs[i]); float*g=(float*)D; int bad=0;
    for(long t=0;t<200000;t++){int a=rand()%64,b=rand()%64,c=rand()%64,e=rand()%64; if(g[(e*DR+c*16384+b*256)/4+a]!=f[(a*SR+b*16384+c*256)/4+e])bad++;}
    if(bad){printf("%s BAD %d\n",argv[2+i],bad);return 1;}}
  double rs[16][64],gb[16][64],cg[16][64];
  for(int r=0;r<reps;r++)for(int i=0;i<nk;i++){
    double t0=now(); ntcopy(); double t1=now(); memcpy(D,S,n); double t2=now(); run(vs[i]); double t3=now();
    double c=t1-t0; if(t2-t1<c)c=t2-t1; rs[i][r]=c/(t3-t2); gb[i][r]=n/(t3-t2)/1e9; cg[i][r]=n/c/1e9;
  }
  for(int i=0;i<nk;i++){double*x=rs[i],*y=gb[i],*z=cg[i];for(int a=0;a<reps;a++)for(int b=a+1;b<reps;b++){if(x[b]<x[a]){double t=x[a];x[a]=x[b];x[b]=t;} if(y[b]<y[a]){double t=y[a];y[a]=y[b];y[b]=t;} if(z[b]<z[a]){double t=z[a];z[a]=z[b];z[b]=t;}}
    printf("%-24s median %.3f (min %.3f max %.3f)  GB/s %.1f copy %.1f\n",argv[2+i],x[reps/2],x[0],x[reps-1],y[reps/2],z[reps/2]);}
}
