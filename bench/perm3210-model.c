/* A model of relayout's f32 64^4 permutation 3,2,1,0 at one worker (issue #43), outside the engine:
   the same loop nest (64x64 blocks, c x b groups 8 x 4, each kernel call 4 16x16 blocks down the
   source, PREFETCHT1 64 bytes ahead, non-temporal stores), kernels K0-K7 (see each one's comment),
   timed in thread CPU time against the faster of an AVX-512 NT copy and glibc memcpy of the same
   64 MiB in the same pass; every pass runs every kernel named, in the order given.
   Build: gcc -O3 -march=x86-64-v4 -o pm2 perm3210-model.c
   Run:   ./pm2 PASSES K...          (SEQ=1: sequential source addresses, SEQ=2: destination, 3: both;
                                     ABS=1: GB/s per pass). K5 writes a wrong result (no network). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#define N 64
#define MB (1<<20)
#define PD 64
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
typedef __m512i V;
#define PF(p) _mm_prefetch((const char*)(p)+PD,_MM_HINT_T1)
#define ST(p,v) _mm512_stream_si512((void*)(p),(v))
#define L512(p) _mm512_load_si512((const void*)(p))
#define L256(p) _mm256_load_si256((const __m256i*)(p))
static int HOT=0; /* ordinary stores */
/* ---- K0: current transposeHalves32, 4 blocks down the source per call ---- */
static inline void t16h(char*d,long ds,const char*s,long ss){
  V P[16];
  for(int g=0;g<2;g++)for(int r=0;r<4;r++){int a=g*8+r,b=a+4;
    const char*pa=s+a*ss,*pb=s+b*ss;
    V X=L512(pa); PF(pa); V Z=_mm512_broadcast_i64x4(L256(pa+32));
    V W=L512(pb); PF(pb); V Y=_mm512_broadcast_i64x4(L256(pb));
    P[g*4+r]=_mm512_mask_blend_epi32(0xFF00,X,Y);
    P[8+g*4+r]=_mm512_mask_blend_epi32(0xFF00,Z,W);}
  V U[16];
  for(int q=0;q<4;q++){V*p=P+4*q; V a0=_mm512_unpacklo_epi32(p[0],p[1]),a1=_mm512_unpackhi_epi32(p[0],p[1]),a2=_mm512_unpacklo_epi32(p[2],p[3]),a3=_mm512_unpackhi_epi32(p[2],p[3]);
    U[4*q+0]=_mm512_unpacklo_epi64(a0,a2);U[4*q+1]=_mm512_unpackhi_epi64(a0,a2);U[4*q+2]=_mm512_unpacklo_epi64(a1,a3);U[4*q+3]=_mm512_unpackhi_epi64(a1,a3);}
  V o[16];
  for(int h=0;h<2;h++)for(int t=0;t<4;t++){V u=U[8*h+t],v=U[8*h+4+t];
    o[8*h+t]=_mm512_shuffle_i32x4(u,v,0x88);o[8*h+4+t]=_mm512_shuffle_i32x4(u,v,0xDD);}
  if(HOT) for(int j=0;j<16;j++)_mm512_store_si512((void*)(d+j*ds),o[j]);
  else for(int j=0;j<16;j++)ST(d+j*ds,o[j]);
}
static void k0(char*d,long ds,const char*s,long ss,int n){for(int i=0;i<n;i++)t16h(d+i*64,ds,s+i*16*ss,ss);}

/* ---- K1: masked broadcast merge loads (no blends) ---- */
static inline void t16m(char*d,long ds,const char*s,long ss){
  V P[16];
  for(int g=0;g<2;g++)for(int r=0;r<4;r++){int a=g*8+r,b=a+4;
    const char*pa=s+a*ss,*pb=s+b*ss;
    V X=L512(pa); PF(pa); V W=L512(pb); PF(pb);
    P[g*4+r]=_mm512_mask_broadcast_i64x4(X,0xF0,L256(pb));
    P[8+g*4+r]=_mm512_mask_broadcast_i64x4(W,0x0F,L256(pa+32));}
  V U[16];
  for(int q=0;q<4;q++){V*p=P+4*q; V a0=_mm512_unpacklo_epi32(p[0],p[1]),a1=_mm512_unpackhi_epi32(p[0],p[1]),a2=_mm512_unpacklo_epi32(p[2],p[3]),a3=_mm512_unpackhi_epi32(p[2],p[3]);
    U[4*q+0]=_mm512_unpacklo_epi64(a0,a2);U[4*q+1]=_mm512_unpackhi_epi64(a0,a2);U[4*q+2]=_mm512_unpacklo_epi64(a1,a3);U[4*q+3]=_mm512_unpackhi_epi64(a1,a3);}
  for(int h=0;h<2;h++)for(int t=0;t<4;t++){V u=U[8*h+t],v=U[8*h+4+t];
    V o0=_mm512_shuffle_i32x4(u,v,0x88),o1=_mm512_shuffle_i32x4(u,v,0xDD);
    if(HOT){_mm512_store_si512((void*)(d+(8*h+t)*ds),o0);_mm512_store_si512((void*)(d+(8*h+4+t)*ds),o1);}
    else{ST(d+(8*h+t)*ds,o0);ST(d+(8*h+4+t)*ds,o1);}}
}
static void k1(char*d,long ds,const char*s,long ss,int n){for(int i=0;i<n;i++)t16m(d+i*64,ds,s+i*16*ss,ss);}

/* ---- K2: software pipeline over half blocks (columns 0-7 / 8-15 of a 16x16 block).
   Half hb of block i: P[0..7] = for rows r<4 of groups g: lo: rows 8g+r | 8g+r+4 low halves; hi: high halves.
   Network of one half: two quads -> U[8] -> 8 outputs. */
static inline void loadhalf(V*P,const char*s,long ss,int hi){
  for(int g=0;g<2;g++)for(int r=0;r<4;r++){int a=g*8+r,b=a+4; const char*pa=s+a*ss,*pb=s+b*ss;
    if(!hi){V X=L512(pa); PF(pa); P[g*4+r]=_mm512_mask_broadcast_i64x4(X,0xF0,L256(pb));}
    else{V W=L512(pb); PF(pb); P[g*4+r]=_mm512_mask_broadcast_i64x4(W,0x0F,L256(pa+32));}}
}
static inline void nethalf(V*P,V*o){
  V U[8];
  for(int q=0;q<2;q++){V*p=P+4*q; V a0=_mm512_unpacklo_epi32(p[0],p[1]),a1=_mm512_unpackhi_epi32(p[0],p[1]),a2=_mm512_unpacklo_epi32(p[2],p[3]),a3=_mm512_unpackhi_epi32(p[2],p[3]);
    U[4*q+0]=_mm512_unpacklo_epi64(a0,a2);U[4*q+1]=_mm512_unpackhi_epi64(a0,a2);U[4*q+2]=_mm512_unpacklo_epi64(a1,a3);U[4*q+3]=_mm512_unpackhi_epi64(a1,a3);}
  for(int t=0;t<4;t++){o[t]=_mm512_shuffle_i32x4(U[t],U[4+t],0x88);o[4+t]=_mm512_shuffle_i32x4(U[t],U[4+t],0xDD);}
}
static void k2(char*d,long ds,const char*s,long ss,int n){
  /* half index h = 2*i + hi; outputs rows hi*8 .. hi*8+7 at d+i*64 */
  V P[8],Q[8],o[8];
  loadhalf(P,s,ss,0);
  int H=2*n;
  for(int h=0;h<H;h++){
    nethalf(P,o);
    int i=h>>1,hi=h&1; char*dd=d+i*64+hi*8*ds;
    if(h+1<H){int i2=(h+1)>>1,hi2=(h+1)&1; const char*s2=s+i2*16*ss;
      /* interleave: one store, one row-pair load */
      for(int g=0;g<2;g++)for(int r=0;r<4;r++){int k=g*4+r; ST(dd+k*ds,o[k]);
        int a=g*8+r,b=a+4; const char*pa=s2+a*ss,*pb=s2+b*ss;
        if(!hi2){V X=L512(pa); PF(pa); Q[k]=_mm512_mask_broadcast_i64x4(X,0xF0,L256(pb));}
        else{V W=L512(pb); PF(pb); Q[k]=_mm512_mask_broadcast_i64x4(W,0x0F,L256(pa+32));}}
      for(int k=0;k<8;k++)P[k]=Q[k];
    } else for(int k=0;k<8;k++)ST(dd+k*ds,o[k]);
  }
}
/* ---- K3: two blocks interleaved (ILP): halves of block i and i+1 alternate, stores at end of each half ---- */
static void k3(char*d,long ds,const char*s,long ss,int n){
  for(int i=0;i<n;i++)for(int hi=0;hi<2;hi++){V P[8],o[8]; const char*s2=s+i*16*ss; loadhalf(P,s2,ss,hi); nethalf(P,o); char*dd=d+i*64+hi*8*ds; for(int k=0;k<8;k++)ST(dd+k*ds,o[k]);}
}
/* ---- K4: t16v3: 128-bit lane exchange by masked broadcast loads, 32 unpacks + 16 blends, 64 loads ---- */
#define B128(p) _mm_load_si128((const __m128i*)(p))
static inline void t16v3(char*d,long ds,const char*s,long ss){
  for(int i=0;i<16;i++)PF(s+i*ss);
  for(int a=0;a<2;a++){int b=a+2; V U[4],Vv[4];
    for(int i=0;i<4;i++){const char*r0=s+i*ss,*r1=s+(4+i)*ss,*r2=s+(8+i)*ss,*r3=s+(12+i)*ss;
      V u=_mm512_broadcast_i32x4(B128(r0+16*a)); u=_mm512_mask_broadcast_i32x4(u,0x00F0,B128(r1+16*a)); u=_mm512_mask_broadcast_i32x4(u,0x0F00,B128(r2+16*b)); u=_mm512_mask_broadcast_i32x4(u,0xF000,B128(r3+16*b));
      V v=_mm512_broadcast_i32x4(B128(r0+16*b)); v=_mm512_mask_broadcast_i32x4(v,0x00F0,B128(r1+16*b)); v=_mm512_mask_broadcast_i32x4(v,0x0F00,B128(r2+16*a)); v=_mm512_mask_broadcast_i32x4(v,0xF000,B128(r3+16*a));
      U[i]=u;Vv[i]=v;}
    V uo[4],vo[4];
    {V a0=_mm512_unpacklo_epi32(U[0],U[1]),a1=_mm512_unpackhi_epi32(U[0],U[1]),a2=_mm512_unpacklo_epi32(U[2],U[3]),a3=_mm512_unpackhi_epi32(U[2],U[3]);
     uo[0]=_mm512_unpacklo_epi64(a0,a2);uo[1]=_mm512_unpackhi_epi64(a0,a2);uo[2]=_mm512_unpacklo_epi64(a1,a3);uo[3]=_mm512_unpackhi_epi64(a1,a3);}
    {V a0=_mm512_unpacklo_epi32(Vv[0],Vv[1]),a1=_mm512_unpackhi_epi32(Vv[0],Vv[1]),a2=_mm512_unpacklo_epi32(Vv[2],Vv[3]),a3=_mm512_unpackhi_epi32(Vv[2],Vv[3]);
     vo[0]=_mm512_unpacklo_epi64(a0,a2);vo[1]=_mm512_unpackhi_epi64(a0,a2);vo[2]=_mm512_unpacklo_epi64(a1,a3);vo[3]=_mm512_unpackhi_epi64(a1,a3);}
    for(int t=0;t<4;t++){V o0=_mm512_mask_blend_epi32(0xFF00,uo[t],vo[t]),o1=_mm512_mask_blend_epi32(0xFF00,vo[t],uo[t]);
      int c0=4*a+t,c1=4*b+t;
      if(HOT){_mm512_store_si512((void*)(d+c0*ds),o0);_mm512_store_si512((void*)(d+c1*ds),o1);}else{ST(d+c0*ds,o0);ST(d+c1*ds,o1);}}
  }
}
static void k4(char*d,long ds,const char*s,long ss,int n){for(int i=0;i<n;i++)t16v3(d+i*64,ds,s+i*16*ss,ss);}
/* ---- K5: no shuffles: loads + NT stores only (upper bound) ---- */
static void k5(char*d,long ds,const char*s,long ss,int n){for(int i=0;i<n;i++){V r[16];const char*s2=s+i*16*ss;for(int j=0;j<16;j++){r[j]=L512(s2+j*ss);PF(s2+j*ss);}for(int j=0;j<16;j++)ST(d+i*64+j*ds,r[j]);}}
/* ---- K6: K0 network but stores interleaved with next block's loads (full block pipeline, spills allowed) ---- */
static void k6(char*d,long ds,const char*s,long ss,int n){
  V P[16];
  for(int g=0;g<2;g++)for(int r=0;r<4;r++){int a=g*8+r,b=a+4;const char*pa=s+a*ss,*pb=s+b*ss;
    V X=L512(pa);PF(pa);V W=L512(pb);PF(pb);P[g*4+r]=_mm512_mask_broadcast_i64x4(X,0xF0,L256(pb));P[8+g*4+r]=_mm512_mask_broadcast_i64x4(W,0x0F,L256(pa+32));}
  for(int i=0;i<n;i++){
    V U[16];
    for(int q=0;q<4;q++){V*p=P+4*q; V a0=_mm512_unpacklo_epi32(p[0],p[1]),a1=_mm512_unpackhi_epi32(p[0],p[1]),a2=_mm512_unpacklo_epi32(p[2],p[3]),a3=_mm512_unpackhi_epi32(p[2],p[3]);
      U[4*q+0]=_mm512_unpacklo_epi64(a0,a2);U[4*q+1]=_mm512_unpackhi_epi64(a0,a2);U[4*q+2]=_mm512_unpacklo_epi64(a1,a3);U[4*q+3]=_mm512_unpackhi_epi64(a1,a3);}
    V o[16];
    for(int h=0;h<2;h++)for(int t=0;t<4;t++){o[8*h+t]=_mm512_shuffle_i32x4(U[8*h+t],U[8*h+4+t],0x88);o[8*h+4+t]=_mm512_shuffle_i32x4(U[8*h+t],U[8*h+4+t],0xDD);}
    char*dd=d+i*64; const char*s2=s+(i+1)*16*ss;
    for(int g=0;g<2;g++)for(int r=0;r<4;r++){int k=g*4+r; ST(dd+(2*k)*ds,o[2*k]); ST(dd+(2*k+1)*ds,o[2*k+1]);
      if(i+1<n){int a=g*8+r,b=a+4;const char*pa=s2+a*ss,*pb=s2+b*ss;
      V X=L512(pa);PF(pa);V W=L512(pb);PF(pb);P[g*4+r]=_mm512_mask_broadcast_i64x4(X,0xF0,L256(pb));P[8+g*4+r]=_mm512_mask_broadcast_i64x4(W,0x0F,L256(pa+32));}}
  }
}
/* ---- K7: K0 with VINSERTI64X4 from memory ---- */
static inline void t16i(char*d,long ds,const char*s,long ss){
  V P[16];
  for(int g=0;g<2;g++)for(int r=0;r<4;r++){int a=g*8+r,b=a+4;
    const char*pa=s+a*ss,*pb=s+b*ss;
    V X=L512(pa); PF(pa); V W=L512(pb); PF(pb);
    P[g*4+r]=_mm512_inserti64x4(X,L256(pb),1);
    P[8+g*4+r]=_mm512_inserti64x4(W,L256(pa+32),0);}
  V U[16];
  for(int q=0;q<4;q++){V*p=P+4*q; V a0=_mm512_unpacklo_epi32(p[0],p[1]),a1=_mm512_unpackhi_epi32(p[0],p[1]),a2=_mm512_unpacklo_epi32(p[2],p[3]),a3=_mm512_unpackhi_epi32(p[2],p[3]);
    U[4*q+0]=_mm512_unpacklo_epi64(a0,a2);U[4*q+1]=_mm512_unpackhi_epi64(a0,a2);U[4*q+2]=_mm512_unpacklo_epi64(a1,a3);U[4*q+3]=_mm512_unpackhi_epi64(a1,a3);}
  for(int h=0;h<2;h++)for(int t=0;t<4;t++){V u=U[8*h+t],v=U[8*h+4+t];
    V o0=_mm512_shuffle_i32x4(u,v,0x88),o1=_mm512_shuffle_i32x4(u,v,0xDD);
    if(HOT){_mm512_store_si512((void*)(d+(8*h+t)*ds),o0);_mm512_store_si512((void*)(d+(8*h+4+t)*ds),o1);}
    else{ST(d+(8*h+t)*ds,o0);ST(d+(8*h+4+t)*ds,o1);}}
}
static void k7(char*d,long ds,const char*s,long ss,int n){for(int i=0;i<n;i++)t16i(d+i*64,ds,s+i*16*ss,ss);}
typedef void(*KF)(char*,long,const char*,long,int);
static KF KS[]={k0,k1,k2,k3,k4,k5,k6,k7};
static char *S,*D;
static int GJ=4,GK=8;
static int SEQ=0;
static void perm(KF k){
  long ci=0;
  for(int jo=0;jo<N/GJ;jo++)for(int ko=0;ko<N/GK;ko++)for(int ji=0;ji<GJ;ji++)for(int ki=0;ki<GK;ki++){
    int j=jo*GJ+ji,kk=ko*GK+ki;
    char*d=D+(long)kk*16384+j*256; const char*s=S+(long)j*16384+kk*256;
    if(SEQ) for(int cb=0;cb<4;cb++,ci++){ char*dd=d+cb*16*MB; long dss=MB; const char*ssp=s+cb*64; long sss=MB;
        if(SEQ&1){ssp=S+ci*4096;sss=64;} if(SEQ&2){dd=D+ci*4096;dss=256;} k(dd,dss,ssp,sss,4);}
    else for(int cb=0;cb<4;cb++) k(d+cb*16*MB,MB,s+cb*64,MB,4);
  }
  _mm_sfence();
}
__attribute__((aligned(64))) char hs[16*4096+64*64],hd[16384];
static void hot(KF k){
  for(int it=0;it<4096;it++) k(hd,256,hs,256,4); }
static void ntcopy(void){
  long n=(long)N*N*N*N*4;
  for(long o=0;o<n;o+=256){
    V a=L512(S+o),b=L512(S+o+64),c=L512(S+o+128),e=L512(S+o+192);
    ST(D+o,a);ST(D+o+64,b);ST(D+o+128,c);ST(D+o+192,e);}
  _mm_sfence();
}
int main(int argc,char**argv){
  long n=(long)N*N*N*N*4;
  S=aligned_alloc(4096,n);D=aligned_alloc(4096,n);
  float*f=(float*)S; for(long i=0;i<n/4;i++)f[i]=i; memset(D,0,n);
  int reps=atoi(argv[1]); int nk=argc-2; int ks[16]; for(int i=0;i<nk;i++)ks[i]=atoi(argv[2+i]);
  if(getenv("SEQ"))SEQ=atoi(getenv("SEQ"));
  for(int i=0;i<nk;i++){ if(ks[i]==5||SEQ)continue; memset(D,0,n); int h=HOT;HOT=0; perm(KS[ks[i]]);HOT=h; float*g=(float*)D; int bad=0;
    for(long t=0;t<200000;t++){int a=rand()%64,b=rand()%64,c=rand()%64,e=rand()%64; if(g[((e*64+c)*64+b)*64+a]!=f[((a*64+b)*64+c)*64+e])bad++;}
    if(bad){printf("K%d BAD %d\n",ks[i],bad);return 1;}}
  double rs[16][64];
  for(int r=0;r<reps;r++)for(int i=0;i<nk;i++){
    double t0=now(); ntcopy(); double t1=now(); memcpy(D,S,n); double t2=now(); perm(KS[ks[i]]); double t3=now();
    double c=t1-t0; if(t2-t1<c)c=t2-t1; rs[i][r]=c/(t3-t2);
    if(getenv("ABS"))printf("K%d nt %.1f memcpy %.1f perm %.1f GB/s\n",ks[i],n/(t1-t0)/1e9,n/(t2-t1)/1e9,n/(t3-t2)/1e9);
  }
  for(int i=0;i<nk;i++){double*x=rs[i];for(int a=0;a<reps;a++)for(int b=a+1;b<reps;b++)if(x[b]<x[a]){double y=x[a];x[a]=x[b];x[b]=y;}
    printf("K%d%s median %.3f (min %.3f max %.3f)\n",ks[i],HOT?" hot":"",x[reps/2],x[0],x[reps-1]);}
}
