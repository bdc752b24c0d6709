/* Read patterns of the 64^4 perm 3,2,1,0's source from DRAM, reads only (no stores), thread CPU
   time, GB/s medians of 9 (issue #43; bench/design-notes.md). A 64 MiB array cut into R rows (64:
   1 MiB apart, as the perm's a rows), read a visit of g lines a row, the rows in turn ("RxG pfD":
   PREFETCHT1 D bytes past each line read), against one sequential read; "perm ...": the perm's own
   source order (b-groups of 4 runs of 2 KiB, a line a row a step); "+4pf": one line a visit, asking
   for 4 lines a row every 4th visit; "scratch": 16 rows x 4 lines copied to an L1 buffer, then read
   there. Build: gcc -O3 -march=x86-64-v4 -o reads perm3210-reads.c */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static __m512i acc; static char*S; static long n=64L<<20;
static void seq(void){__m512i a=acc;for(long o=0;o<n;o+=64)a=_mm512_add_epi32(a,_mm512_load_si512(S+o));acc=a;}
/* R rows (the array cut into R rows of n/R bytes), each visit g lines, rows in turn; pf: T1 prefetch dist bytes ahead (0 none) */
static void strided(int R,int g,long pf){__m512i a=acc;long rl=n/R;for(long o=0;o<rl;o+=64*g)for(int i=0;i<R;i++){const char*p=S+i*rl+o;for(int k=0;k<g;k++){a=_mm512_add_epi32(a,_mm512_load_si512(p+64*k));if(pf)_mm_prefetch(p+64*k+pf,_MM_HINT_T1);}}acc=a;}
/* the perm's source order: 64 rows 1 MiB, groups: for b in 4: run of 2 KiB (32 lines) 1 line per row per step */
static void permsrc(long pf,int gb,int run){__m512i a=acc;for(long jo=0;jo<64/gb;jo++)for(long ko=0;ko<16384/run;ko++)for(int b=0;b<gb;b++)for(long o=0;o<run;o+=64)for(int i=0;i<64;i++){const char*p=S+i*(1L<<20)+(jo*gb+b)*16384+ko*run+o;a=_mm512_add_epi32(a,_mm512_load_si512(p));if(pf)_mm_prefetch(p+pf,_MM_HINT_T1);}acc=a;}
/* loads 1 line per row per visit; prefetch (T1 or T0) of 4 lines of the row every 4th visit, pf bytes ahead */
static void strided4pf(int R,long pf,int t0){__m512i a=acc;long rl=n/R;for(long o=0;o<rl;o+=64)for(int i=0;i<R;i++){const char*p=S+i*rl+o;a=_mm512_add_epi32(a,_mm512_load_si512(p));if((o&255)==0)for(int k=0;k<4;k++){if(t0)_mm_prefetch(p+pf+64*k,_MM_HINT_T0);else _mm_prefetch(p+pf+64*k,_MM_HINT_T1);}}acc=a;}
/* 16 rows 4 lines each copied to an L1 scratch then read back (column order) */
static char scr[4096] __attribute__((aligned(64)));
static void viaScratch(long pf){__m512i a=acc;long rl=n/64;for(long o=0;o<rl;o+=256)for(int g=0;g<4;g++){for(int i=0;i<16;i++){const char*p=S+(g*16+i)*rl+o;for(int k=0;k<4;k++){_mm512_store_si512(scr+i*256+k*64,_mm512_load_si512(p+64*k));} if(pf)for(int k=0;k<4;k++)_mm_prefetch(p+pf+64*k,_MM_HINT_T1);}
  for(int k=0;k<4;k++)for(int i=0;i<16;i++)a=_mm512_add_epi32(a,_mm512_load_si512(scr+i*256+k*64));}acc=a;}
int main(int argc,char**argv){
  S=aligned_alloc(4096,n); memset(S,1,n); char*F=aligned_alloc(4096,n); memset(F,2,n);
  const char*names[]={"seq","64x1 pf0","64x1 pf64","64x1 pf256","64x4 pf256","64x16 pf0","64x64 pf0","32x1 pf64","16x1 pf64","16x4 pf256","8x1 pf64","perm 4b 2K pf64","perm 1b 16K pf64","perm 4b 2K pf0","perm 16b 1K pf64","128x1 pf64","64x1 +4pf256 T1","64x1 +4pf512 T1","64x1 +4pf256 T0","scratch 16x4 pf256","scratch pf0"};
  int K=21; double r[21][9];
  for(int rep=0;rep<9;rep++)for(int k=0;k<K;k++){
    memmove(F,F+4096,n-4096); /* evict */
    double t0=now();
    switch(k){case 0:seq();break;case 1:strided(64,1,0);break;case 2:strided(64,1,64);break;case 3:strided(64,1,256);break;case 4:strided(64,4,256);break;case 5:strided(64,16,0);break;case 6:strided(64,64,0);break;case 7:strided(32,1,64);break;case 8:strided(16,1,64);break;case 9:strided(16,4,256);break;case 10:strided(8,1,64);break;case 11:permsrc(64,4,2048);break;case 12:permsrc(64,1,16384);break;case 13:permsrc(0,4,2048);break;case 14:permsrc(64,16,1024);break;case 15:strided(128,1,64);break;case 16:strided4pf(64,256,0);break;case 17:strided4pf(64,512,0);break;case 18:strided4pf(64,256,1);break;case 19:viaScratch(256);break;case 20:viaScratch(0);break;}
    r[k][rep]=n/(now()-t0)/1e9;}
  for(int k=0;k<K;k++){double*x=r[k];for(int a=0;a<9;a++)for(int b=a+1;b<9;b++)if(x[b]<x[a]){double t=x[a];x[a]=x[b];x[b]=t;} printf("%-18s %.1f GB/s (%.1f-%.1f)\n",names[k],x[4],x[0],x[8]);}
  return _mm512_reduce_add_epi32(acc)==42;
}
